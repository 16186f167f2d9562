// The basics through gocql: connecting (system.local), DDL and its errors,
// prepared inserts and selects, paging at a small page size (automatic and
// by page state), logged and unlogged batches.
package keywisego

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

func TestSystemLocalDescribesCassandra4(t *testing.T) {
	s := connect(t)
	var release, partitioner string
	if err := s.Query("SELECT release_version, partitioner FROM system.local").
		Scan(&release, &partitioner); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(release, "4.") {
		t.Errorf("release_version = %q, want 4.x", release)
	}
	if partitioner != "org.apache.cassandra.dht.Murmur3Partitioner" {
		t.Errorf("partitioner = %q", partitioner)
	}
}

func TestDDLErrorsCarryTheirCodes(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_ddl")
	err := s.Query("CREATE KEYSPACE go_ddl WITH replication = " +
		"{'class': 'SimpleStrategy', 'replication_factor': 1}").Exec()
	if exists, ok := err.(*gocql.RequestErrAlreadyExists); !ok || exists.Keyspace != "go_ddl" {
		t.Errorf("second CREATE KEYSPACE: %#v, want RequestErrAlreadyExists for go_ddl", err)
	}
	err = s.Query("SELECT * FROM go_ddl.missing WHERE k = ?", 1).Exec()
	if errorCode(err) != gocql.ErrCodeInvalid {
		t.Errorf("SELECT from a missing table: %v (code %#x), want Invalid", err, errorCode(err))
	}
	err = s.Query("SELEKT * FROM system.local").Exec()
	if errorCode(err) != gocql.ErrCodeSyntax {
		t.Errorf("SELEKT: %v (code %#x), want a syntax error", err, errorCode(err))
	}
}

func TestPreparedInsertAndPagedSelect(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_basics")
	mustExec(t, s, "CREATE TABLE go_basics.readings (sensor text, seq int, value double, "+
		"PRIMARY KEY (sensor, seq))")
	const rows = 100
	for i := 0; i < rows; i++ {
		mustExec(t, s, "INSERT INTO go_basics.readings (sensor, seq, value) VALUES (?, ?, ?)",
			"a", i, float64(i)/2)
	}
	mustExec(t, s, "INSERT INTO go_basics.readings (sensor, seq, value) VALUES (?, ?, ?)", "b", 0, -1.0)

	// Automatic paging: every row once, in clustering order.
	iter := s.Query("SELECT seq, value FROM go_basics.readings WHERE sensor = ?", "a").
		PageSize(7).Iter()
	var seq int
	var value float64
	next := 0
	for iter.Scan(&seq, &value) {
		if seq != next || value != float64(next)/2 {
			t.Fatalf("row %d: seq %d value %v", next, seq, value)
		}
		next++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if next != rows {
		t.Fatalf("%d rows, want %d", next, rows)
	}

	// Paging by hand: pages of at most 7 rows that together are the partition.
	var state []byte
	pages, total := 0, 0
	for {
		iter := s.Query("SELECT seq FROM go_basics.readings WHERE sensor = ?", "a").
			PageSize(7).PageState(state).Iter()
		n := iter.NumRows()
		if n > 7 {
			t.Fatalf("page %d has %d rows", pages, n)
		}
		for iter.Scan(&seq) {
			if seq != total {
				t.Fatalf("page %d: seq %d, want %d", pages, seq, total)
			}
			total++
		}
		state = iter.PageState()
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		pages++
		if len(state) == 0 || pages > rows {
			break
		}
	}
	if total != rows || pages < rows/7 {
		t.Fatalf("%d rows in %d pages, want %d rows in at least %d pages", total, pages, rows, rows/7)
	}

	// A paged scan of the whole table sees both partitions.
	var count int64
	if err := s.Query("SELECT count(*) FROM go_basics.readings").PageSize(3).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != rows+1 {
		t.Fatalf("count(*) = %d, want %d", count, rows+1)
	}
}

func TestBatches(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_batch")
	mustExec(t, s, "CREATE TABLE go_batch.items (k text, c int, v text, PRIMARY KEY (k, c))")
	logged := s.NewBatch(gocql.LoggedBatch)
	logged.Query("INSERT INTO go_batch.items (k, c, v) VALUES (?, ?, ?)", "x", 1, "one")
	logged.Query("INSERT INTO go_batch.items (k, c, v) VALUES (?, ?, ?)", "x", 2, "two")
	logged.Query("INSERT INTO go_batch.items (k, c, v) VALUES (?, ?, ?)", "y", 1, "uno")
	// The batch's statements share one timestamp: for one cell written
	// twice the larger value wins ('one' > 'ONE'), not the later statement.
	logged.Query("UPDATE go_batch.items SET v = ? WHERE k = ? AND c = ?", "ONE", "x", 1)
	if err := s.ExecuteBatch(logged); err != nil {
		t.Fatal(err)
	}
	unlogged := s.NewBatch(gocql.UnloggedBatch)
	unlogged.Query("INSERT INTO go_batch.items (k, c, v) VALUES (?, ?, ?)", "x", 3, "three")
	unlogged.Query("DELETE FROM go_batch.items WHERE k = ? AND c = ?", "x", 2)
	if err := s.ExecuteBatch(unlogged); err != nil {
		t.Fatal(err)
	}
	var got []string
	iter := s.Query("SELECT c, v FROM go_batch.items WHERE k = ?", "x").Iter()
	var c int
	var v string
	for iter.Scan(&c, &v) {
		got = append(got, v)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "one,three" {
		t.Errorf("partition x = %v, want [one three]", got)
	}
	if err := s.Query("SELECT v FROM go_batch.items WHERE k = ? AND c = ?", "y", 1).Scan(&v); err != nil || v != "uno" {
		t.Errorf("y/1 = %q (%v), want uno", v, err)
	}
}
