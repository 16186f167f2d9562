// Request tracing through gocql (docs/tracing.md): a query with a Tracer
// gets its session ids back (its PREPARE's and its EXECUTE's), and the
// session and its events are in system_traces once the node's background
// writer has written them.
package keywisego

import (
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

type traceIDs struct{ ids [][]byte }

func (t *traceIDs) Trace(id []byte) { t.ids = append(t.ids, id) }

func TestTracedQueryGetsItsSession(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_tracing")
	mustExec(t, s, "CREATE TABLE go_tracing.t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO go_tracing.t (k, v) VALUES (1, 'a')")
	tracer := &traceIDs{}
	if err := s.Query("SELECT v FROM go_tracing.t WHERE k = ?", 1).
		Trace(tracer).Exec(); err != nil {
		t.Fatal(err)
	}
	// gocql traces the PREPARE it sends first, then the EXECUTE.
	if len(tracer.ids) != 2 || len(tracer.ids[1]) != 16 {
		t.Fatalf("tracing ids: %v, want two 16-byte ids", tracer.ids)
	}
	id, err := gocql.UUIDFromBytes(tracer.ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var request string
	var duration int
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.Query("SELECT request, duration FROM system_traces.sessions "+
			"WHERE session_id = ?", id).Consistency(gocql.One).
			Scan(&request, &duration)
		if err == nil && duration > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %v not complete: %v", id, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if request != "Execute CQL3 prepared query" {
		t.Errorf("request = %q", request)
	}
	iter := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?",
		id).Consistency(gocql.One).Iter()
	var activity string
	var all []string
	for iter.Scan(&activity) {
		all = append(all, activity)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "Read 1 live row and 0 tombstones") {
		t.Errorf("events:\n%s", joined)
	}
}
