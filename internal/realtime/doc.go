// Package realtime runs a process's threads under Linux's real-time
// scheduling policy for the burst of a start: the moment every contender
// of a worker makes its first attempt at once.
//
// On a host with fewer cores than busy processes, a contender's first
// request wakes a database process that takes the core from the contenders
// still starting; four workers on two cores so started 3–7 ms apart.
// Under SCHED_FIFO (priority 1, the lowest real-time priority) a worker's
// threads run until they block, so no ordinary process (the database
// included) takes a core from a worker thread that still has a first
// request to send, and none waits longer than the burst. Start begins a
// Burst and End ends it; the caller bounds it (hammer's driver ends it
// when its last contender has started, or after a timer). Threads the
// runtime starts during a burst are ordinary (SCHED_FLAG_RESET_ON_FORK).
//
// Supported says whether a burst may be had: on Linux, with CAP_SYS_NICE
// (root, in practice), while the kernel throttles real-time threads, and
// when the kernel accepts SCHED_FIFO for the process (a container's
// cgroup may not). Elsewhere nothing changes.
package realtime
