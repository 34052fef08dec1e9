#pragma once
// A new, empty file beside `path` under a name no one else holds, for a writer that fills it
// and then links or renames it into place (an import's database, its workload). Created with
// the mode a plain create gives, 0666 less the umask: mkstemp's 0600 would make a database that
// only its creator can read, where SQLite or an editor would have made one the group can.
#include <string>

namespace ts {

struct NewFileBeside {
  std::string path;  // `path` + ".new-" + a unique suffix
  int fd = -1;       // open for writing; the caller closes it
};

// Throws InputError naming `path` and the system's reason, with `what` ("cannot create the
// database") in front.
NewFileBeside create_file_beside(const std::string& path, const std::string& what);

}  // namespace ts
