package target

import (
	"context"
	"errors"
	"net"
	"testing"
)

// TestCheckSetupServerDown: a server that cannot be reached is the
// world's failure, never the setup's (exit 3, not 2).
func TestCheckSetupServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	f := &File{Path: "target.yaml", Setup: "CREATE TABLE t (x int);"}
	err = CheckSetup(context.Background(), f, "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=2", 10)
	if err == nil || errors.Is(err, ErrSetup) {
		t.Errorf("CheckSetup against a closed port: %v, want an error that is not ErrSetup", err)
	}
}

func TestUsersSQLState(t *testing.T) {
	for code, want := range map[string]bool{
		"42601": true,  // syntax error
		"42P01": true,  // undefined table
		"25001": true,  // active SQL transaction: DROP DATABASE
		"23505": true,  // unique violation
		"P0001": true,  // RAISE EXCEPTION
		"08006": false, // connection failure
		"57P01": false, // admin shutdown
		"53300": false, // too many connections
		"40P01": false, // deadlock
		"XX000": false, // internal error
		"":      false,
	} {
		if got := usersSQLState(code); got != want {
			t.Errorf("usersSQLState(%q) = %v, want %v", code, got, want)
		}
	}
}
