# Sourced by the install tests: `scratch_folder BUILD_DIR SOURCE_DIR` sets $build and $source to
# those folders' physical paths (what a binary would name) and $scratch to a new temporary
# folder outside both, removed when the test exits, so that what the test installs, copies or
# builds there cannot be found through either tree.
scratch_folder() {
  build="$(cd "$1" && pwd -P)"
  source="$(cd "$2" && pwd -P)"
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  scratch="$(cd "$scratch" && pwd -P)"
  case "$scratch/" in
    "$source"/* | "$build"/*)
      echo "FAIL: the temporary folder $scratch is inside the source or build tree; set TMPDIR"
      exit 1 ;;
  esac
}
