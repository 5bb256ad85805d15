/*
 * lsan_suppressions.c — in a build with -fsanitize=address, the leak
 * checker's default suppressions: allocations that libraries we dlopen
 * keep for the life of the process and never free (libpmix strdup()s its
 * version and job data in PMIx_Init and keeps them after PMIx_Finalize).
 * They are not ours to free, and without this every sanitized run under
 * srun --mpi=pmix or Open MPI's mpirun would exit 1 at the leak report.
 * Leaks of Uzura's own code are still reported.
 */
#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);

__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n"
           "leak:libhwloc.so\n";
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int uz_lsan_suppressions_unused;
#endif
