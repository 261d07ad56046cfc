// Package realtime runs a process's threads under Linux's real-time
// scheduling policy for the burst of a start: the moment every contender
// of a worker makes its first attempt at once.
//
// On a host with fewer cores than busy processes, a contender's first
// request wakes a database process that takes the core from the contenders
// still starting; four workers on two cores so started 3–7 ms apart.
// Under SCHED_FIFO (priority 1, the lowest real-time priority) the
// workers' threads run until they block, so every first request is sent
// before any server process runs, and no ordinary process (the database
// included) waits longer than the burst. A Burst is bounded: its caller
// ends it when the last contender has started, and a timer ends it
// anyway. Threads the runtime starts during a burst are ordinary
// (SCHED_FLAG_RESET_ON_FORK).
//
// Changing the policy needs CAP_SYS_NICE (root, in practice) and Linux;
// elsewhere Supported says no and nothing changes.
package realtime
