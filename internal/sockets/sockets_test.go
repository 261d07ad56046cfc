package sockets

import (
	"fmt"
	"net"
	"os"
	"slices"
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

// TestListening lists the ports this process's group listens on: both it
// bound, in order, once each, and not the port of a connection it made
// (other processes of the group, such as other test binaries, may add
// theirs).
func TestListening(t *testing.T) {
	var ports []int
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, checked := Listening(syscall.Getpgrp())
	if !checked {
		t.Fatal("Listening(own group) not checked")
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("Listening = %v, want ascending ports, each once", got)
	}
	for _, p := range ports {
		if !slices.Contains(got, p) {
			t.Errorf("Listening = %v, want it to hold bound port %d", got, p)
		}
	}
	if local := conn.LocalAddr().(*net.TCPAddr).Port; slices.Contains(got, local) {
		t.Errorf("Listening = %v holds %d, the local port of a connection", got, local)
	}
}
