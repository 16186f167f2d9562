// jemalloc's settings for the keywise binary (linked with jemalloc unless
// built with sanitizers; docs/performance.md, "Memory allocator").
//
// glibc's malloc keeps freed memory wherever one small live block pins its
// page: after 10,000 idle connections closed, ~22 MiB stayed with the node
// (the loop's arena: 23 MB from the system, 1.9 MB in use). jemalloc keeps
// each size class on pages of its own and gives unused pages back:
// background threads purge pages idle for dirty_decay_ms, with no
// allocation needed to trigger it (an idle node makes none), and
// muzzy_decay_ms:0 returns them at once (MADV_DONTNEED) rather than
// through MADV_FREE, which leaves them in RSS until the kernel needs them.
extern "C" {
// Read by jemalloc at its first allocation (its documented hook).
extern const char* malloc_conf;
const char* malloc_conf =
    "background_thread:true,dirty_decay_ms:5000,muzzy_decay_ms:0";
}
