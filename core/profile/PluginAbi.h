/* The C interface of a tilescope code plugin: a shared library that exports one entry point,
 *
 *   const TilescopeProfileV1* tilescope_profile(uint32_t* abi_version);
 *
 * The entry point writes the ABI version the plugin was built against into *abi_version and
 * returns a pointer to static data. tilescope reads that version and checks it against
 * TILESCOPE_PROFILE_ABI_VERSION before it reads any field of the returned structure, so a plugin
 * built for another layout is refused with one line, never read with the wrong one. The entry
 * point must do nothing but fill in the version and return: everything it describes is plain data.
 *
 * Plain C types only (no C++ classes, no exceptions, no ownership across the boundary), so that a
 * plugin built with another compiler or standard library still loads. A change of layout is a new
 * version (TilescopeProfileV2, ABI 2); an older tilescope then refuses the newer plugin by name. */
#ifndef TILESCOPE_PROFILE_PLUGIN_ABI_H
#define TILESCOPE_PROFILE_PLUGIN_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILESCOPE_PROFILE_ABI_VERSION 1u
#define TILESCOPE_PROFILE_ENTRY_POINT "tilescope_profile"

/* One architecture graph of the profile. */
typedef struct TilescopeVariantV1 {
  const char* name;       /* e.g. "910b3", "a100-fitted"; letters, digits, '-', '_', '.' */
  const char* arch_file;  /* a `kind: architecture` YAML file, relative to the library's folder */
  int32_t fitted;         /* non-zero: parameters fitted to measurements (see provenance) */
  const char* provenance; /* where the figures come from; may be NULL */
} TilescopeVariantV1;

typedef struct TilescopeProfileV1 {
  const char* name;        /* what `profile:NAME` names */
  const char* version;     /* the profile's own version, e.g. "1.0.0" */
  const char* description; /* may be NULL */
  const TilescopeVariantV1* variants;
  uint32_t variant_count;      /* at least 1 */
  const char* default_variant; /* NULL: the first variant */
} TilescopeProfileV1;

typedef const TilescopeProfileV1* (*TilescopeProfileEntryV1)(uint32_t* abi_version);

#ifdef __cplusplus
}
#endif

#endif
