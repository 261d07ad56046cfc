package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/bounded"
)

// envToken holds the shared token of a coordinator and its agents when
// neither --token-file nor --token is given (a flag shows in process
// listings; this does not).
const envToken = "HAMMER_TOKEN"

// maxTokenFile bounds what --token-file reads: a token is one line.
const maxTokenFile = 4 << 10

// tokenFlags are where the shared token comes from: --token-file,
// --token, or $HAMMER_TOKEN.
type tokenFlags struct {
	arg, file     string
	onCommandLine bool // the token resolved came from --token
}

func (t *tokenFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.arg, "token", "", "shared `token` agents prove they hold; other local users can read it in the process list, so prefer --token-file or $"+envToken)
	fs.StringVar(&t.file, "token-file", "", "read the shared token from the first line of `FILE` (hammer token > FILE makes one)")
}

// resolve returns the shared token: from --token-file, from --token, or
// from $HAMMER_TOKEN.
func (t *tokenFlags) resolve(fs *flag.FlagSet) (string, error) {
	switch {
	case isSet(fs, "token") && isSet(fs, "token-file"):
		return "", errors.New("--token and --token-file: give one")
	case isSet(fs, "token-file"):
		return readTokenFile(t.file)
	case isSet(fs, "token"):
		t.onCommandLine = true
		return t.arg, nil
	}
	return os.Getenv(envToken), nil
}

// warn says, on stderr, that a token given with --token shows in the
// process list; commands call it once, after every check of the command
// line and its servers, so that a refusal stays one line.
func (t tokenFlags) warn(cmd string, std stdio) {
	if t.onCommandLine {
		fmt.Fprintf(std.err, "hammer %s: warning: other users of this host can read --token in the process list; use --token-file or $%s\n", cmd, envToken)
	}
}

// readTokenFile reads the token from the first line of path, a regular
// file of at most maxTokenFile bytes, without its line ending and
// surrounding blanks.
func readTokenFile(path string) (string, error) {
	b, err := bounded.ReadFile(path, maxTokenFile)
	if err != nil {
		return "", fmt.Errorf("--token-file: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	token := strings.TrimSpace(line)
	if token == "" {
		return "", fmt.Errorf("--token-file %s: the first line is empty", path)
	}
	return token, nil
}

// tokenCmd is `hammer token`: a fresh shared token on stdout.
func tokenCmd(args []string, std stdio) int {
	fs := flag.NewFlagSet("hammer token", flag.ContinueOnError)
	if code, ok := parse(fs, args, std); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(std, "token", "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(std.out, agent.NewToken())
	return exitOK
}

// tokens are the shared tokens a command line and the environment hold,
// for masking: a token is never printed. One read from --token-file is
// not among them: it never stands on a command line an error could echo,
// and the file is read once, when the flags are taken (a pipe can be read
// only once).
func tokens(args []string) []string {
	out := []string{os.Getenv(envToken)}
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "token" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		out = append(out, value)
	}
	return out
}
