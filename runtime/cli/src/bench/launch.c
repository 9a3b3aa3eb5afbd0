/* waddle bench's launcher for reference programs: runs argv[1..] as a child
 * and reports that child's own peak memory and CPU time.
 *
 * ru_maxrss of a process includes the memory of whatever process exec'd it
 * (the pre-exec address space counts), so a reference spawned directly by
 * the harness would inherit the harness's footprint. This launcher is tiny,
 * so the floor it adds is about a megabyte. The last line it writes to
 * standard error is
 *     waddle-bench-rusage MAXRSS_KIB UTIME_US STIME_US
 * and its exit status is the child's (128 + signal when killed). */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: launch PROGRAM [ARGS...]\n");
        return 127;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("exec");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
    }
    fflush(stdout);
    fprintf(stderr, "\nwaddle-bench-rusage %ld %lld %lld\n", (long)ru.ru_maxrss,
            (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
            (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
