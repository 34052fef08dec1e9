# Writes a program's manual page from its own --help, so that the page never says other than
# the program: `cmake -DPROGRAM=path -DNAME=tilescope -DVERSION=0.1.0 -DSUMMARY="..."
# -DOUT=file.1 -P ManPage.cmake`. For a program with subcommands (CLI11's "Subcommands:"
# list), each subcommand's --help follows as a section of its own, and theirs under it (two
# levels: `import csv`, `profiles new gpu`). The page is plain roff: the help texts verbatim in
# no-fill blocks, so that their columns stay aligned.

function(help_of out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} --help OUTPUT_VARIABLE text ERROR_VARIABLE error
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} --help: exit ${status}\n${error}")
  endif()
  # "Usage: /build/app/tilescope ...": the name the program is run by, not the build's path.
  string(REPLACE "${PROGRAM}" "${NAME}" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The names listed under "Subcommands:" in a CLI11 help text.
function(subcommands_of text out)
  set(names "")
  set(in_list FALSE)
  string(REPLACE "\n" ";" lines "${text}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:")
      set(in_list TRUE)
    elseif(in_list AND line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND names ${CMAKE_MATCH_1})
    elseif(in_list AND NOT line MATCHES "^ ")
      set(in_list FALSE)
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# `text` as roff that prints it as it is: backslashes escaped, no line read as a request.
function(verbatim text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(REGEX REPLACE "\n+$" "" text "${text}")
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

string(TOUPPER "${NAME}" title)
string(REPLACE "-" "\\-" roff_name "${NAME}")
set(page ".TH ${title} 1 \"\" \"${NAME} ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\n${roff_name} \\- ${SUMMARY}\n")
help_of(top)
verbatim("${top}" block)
string(APPEND page ".SH DESCRIPTION\n${block}")
subcommands_of("${top}" commands)
if(commands)
  string(APPEND page ".SH COMMANDS\n")
  foreach(command IN LISTS commands)
    help_of(help ${command})
    verbatim("${help}" block)
    string(APPEND page ".SS ${NAME} ${command}\n${block}")
    subcommands_of("${help}" inner)
    foreach(sub IN LISTS inner)
      help_of(help ${command} ${sub})
      verbatim("${help}" block)
      string(APPEND page ".SS ${NAME} ${command} ${sub}\n${block}")
      subcommands_of("${help}" innermost)
      foreach(leaf IN LISTS innermost)
        help_of(help ${command} ${sub} ${leaf})
        verbatim("${help}" block)
        string(APPEND page ".SS ${NAME} ${command} ${sub} ${leaf}\n${block}")
      endforeach()
    endforeach()
  endforeach()
endif()
string(APPEND page ".SH FILES\n/usr/share/tilescope/samples, /usr/share/tilescope/plugins: the "
                   "bundled inputs and hardware profiles.\n")
string(APPEND page ".SH SEE ALSO\n${SEE_ALSO}\n.PP\n/usr/share/doc/tilescope/README.md and "
                   "/usr/share/doc/tilescope/docs/\n")
file(WRITE "${OUT}" "${page}")
