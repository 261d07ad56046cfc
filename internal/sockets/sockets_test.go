package sockets

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// TestListensOn: this process's group listens on a port it bound and on no
// other; a group with no process left listens on nothing, and says so as
// checked.
func TestListensOn(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Fatalf("the sockets of a process are read from /proc, which this system lacks: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	pgid := syscall.Getpgrp()
	if ok, checked := ListensOn(pgid, port); !ok || !checked {
		t.Errorf("ListensOn(own group, bound port) = %t, %t; want true, true", ok, checked)
	}
	ln.Close()
	if ok, checked := ListensOn(pgid, port); ok || !checked {
		t.Errorf("ListensOn(own group, closed port) = %t, %t; want false, true", ok, checked)
	}
	if ok, checked := ListensOn(1<<22+7, port); ok || !checked {
		t.Errorf("ListensOn(a group with no process, port) = %t, %t; want false, true", ok, checked)
	}
}
