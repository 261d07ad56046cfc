// Package childproc holds how hammer starts the processes it owns (workers,
// servers, replicas, tools) so that none outlives it: the process
// attributes that make a child die with its parent where the system can.
package childproc
