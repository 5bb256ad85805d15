/*
 * bind_cpus.c — a plain rank program (no MPI, no PMI) for the binding
 * tests: prints "rank R cpus LIST", LIST being the Cpus_allowed_list line
 * of its own /proc/<pid>/status, which is what the kernel lets it run on.
 * Being no Uzura program, it shows that the binding is mpiexec's doing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    const char *rank = getenv("PMI_RANK");
    char line[4096], path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)getpid());
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            printf("rank %s cpus %s", rank ? rank : "?", line + 18 + strspn(line + 18, " \t"));
            fclose(f);
            return 0;
        }
    }
    fclose(f);
    fprintf(stderr, "bind_cpus: no Cpus_allowed_list in %s\n", path);
    return 1;
}
