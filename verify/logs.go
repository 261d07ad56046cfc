package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// logged quotes what the replica named replica (an attempt's Replica,
// "r<i> <host:port>") printed last, as "; replica i logged last: …
// (file)", or "" when the run kept no log of it or the log says nothing:
// an answer no rule matches (a 500) is often explained there.
func (x *index) logged(replica string) string {
	name, _, _ := strings.Cut(replica, " ")
	i, err := strconv.Atoi(strings.TrimPrefix(name, "r"))
	if err != nil || !strings.HasPrefix(name, "r") {
		return ""
	}
	for _, l := range x.in.ReplicaLogs {
		if l.Replica != i || len(l.Last) == 0 {
			continue
		}
		where := ""
		if l.File != "" {
			where = " (" + l.File + ")"
		}
		return fmt.Sprintf("; replica %d logged last: %s%s", i, strings.Join(l.Last, " | "), where)
	}
	return ""
}
