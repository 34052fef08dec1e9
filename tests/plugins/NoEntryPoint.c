/* A shared library that exports something, but not tilescope's entry point. */
int tilescope_plugin_misnamed(void) { return 1; }
