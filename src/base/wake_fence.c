/*
 * wake_fence.c — registering for membarrier(2) and the sleeper's half of
 * the publish/sleep fence (wake_fence.h says why).
 */
#include <linux/membarrier.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/wake_fence.h"

int uz_wake_fence_one_sided;

static char decision[256] = "every record fenced (no other rank on this host)";

/* -1 unknown, 0 the kernel refuses, 1 we may issue GLOBAL_EXPEDITED. */
static int can_issue = -1;

static long membarrier_call(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

int uz_wake_fence_register(void)
{
    long cmds = membarrier_call(MEMBARRIER_CMD_QUERY);
    can_issue = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                (cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
    return can_issue && membarrier_call(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

void uz_wake_fence_sleep(int peers_may_skip)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!peers_may_skip)
        return;
    if (can_issue < 0)
        uz_wake_fence_register();
    /* Refused now (seccomp installed late)?  Then a publisher that skipped
     * its fence may go unseen until the sleep's timeout, which bounds it. */
    if (can_issue)
        membarrier_call(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

void uz_wake_fence_decided(int one_sided, const char *why)
{
    uz_wake_fence_one_sided = one_sided;
    snprintf(decision, sizeof(decision), "%s", why);
}

const char *uz_wake_fence_describe(void)
{
    return decision;
}
