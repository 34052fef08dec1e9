/* The C interface of a tilescope code plugin: a shared library that exports one entry point,
 *
 *   const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version);
 *
 * The entry point writes the ABI version of the structure it returns into *abi_version
 * (TILESCOPE_PROFILE_ABI_VERSION for a TilescopeProfileV2; 1 for an older TilescopeProfileV1) and
 * returns a pointer to static data. tilescope reads that version and checks it against the versions
 * it reads (TILESCOPE_PROFILE_OLDEST_ABI_VERSION to TILESCOPE_PROFILE_ABI_VERSION) before it reads
 * any field of the returned structure, so a plugin built for another layout is refused with one
 * line, never read with the wrong one. The entry point must do nothing but fill in the version and
 * return: everything it describes is plain data.
 *
 * tilescope first calls it in a child process (profile/PluginCheck.hpp): a library that crashes,
 * hangs or exits there (in its static constructors or its entry point) is skipped with one line
 * naming it, and its code never runs in tilescope's own process. A cost hook's answer must be a
 * finite time of at least 0: anything else stops the command with an error naming the hook.
 *
 * Plain C types only (no C++ classes, no exceptions, no ownership across the boundary), so that a
 * plugin built with another compiler or standard library still loads. A change of layout is a new
 * version (TilescopeProfileV2, ABI 2, added cost hooks); an older tilescope then refuses the newer
 * plugin by name, and a newer one reads the older layouts it lists. */
#ifndef TILESCOPE_PROFILE_PLUGIN_ABI_H
#define TILESCOPE_PROFILE_PLUGIN_ABI_H

#include <stdint.h>

#include "arch/ComputeCostHook.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version this tilescope writes into its headers, and the oldest it still reads: a version 2
 * profile begins with the fields of version 1, so a version 1 plugin loads unchanged. */
#define TILESCOPE_PROFILE_ABI_VERSION 2u
#define TILESCOPE_PROFILE_OLDEST_ABI_VERSION 1u
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

/* ABI 2: cost hooks for compute units (arch/ComputeCostHook.h). A graph's compute node names
 * one with `cost_hook: NAME`; the hook's name is global, so prefix it with the profile's name. */
typedef struct TilescopeCostHookV2 {
  const char* name; /* letters, digits, '-', '_' and '.' */
  TilescopeComputeSeconds seconds;
  const void* user; /* passed back to `seconds` unchanged; may be NULL */
} TilescopeCostHookV2;

/* Version 1's fields, in the same order, then the hooks. */
typedef struct TilescopeProfileV2 {
  const char* name;
  const char* version;
  const char* description;
  const TilescopeVariantV1* variants;
  uint32_t variant_count;
  const char* default_variant;
  const TilescopeCostHookV2* cost_hooks; /* may be NULL when cost_hook_count is 0 */
  uint32_t cost_hook_count;
} TilescopeProfileV2;

typedef const TilescopeProfileV2* (*TilescopeProfileEntryV2)(uint32_t* abi_version);

#ifdef __cplusplus
}
#endif

#endif
