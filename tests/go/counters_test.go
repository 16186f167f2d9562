// Counters through gocql: increments and decrements of one counter from
// several goroutines at once must sum exactly; a counter batch; a counter
// cannot be set to a value.
package keywisego

import (
	"sync"
	"testing"

	"github.com/gocql/gocql"
)

func TestConcurrentCounterUpdates(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_counters")
	mustExec(t, s, "CREATE TABLE go_counters.hits (k text PRIMARY KEY, n counter)")
	const workers, updates = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	want := int64(0)
	for w := 0; w < workers; w++ {
		for i := 0; i < updates; i++ {
			want += int64(w - 2) // some goroutines decrement
		}
		wg.Add(1)
		go func(delta int64) {
			defer wg.Done()
			for i := 0; i < updates; i++ {
				if err := s.Query("UPDATE go_counters.hits SET n = n + ? WHERE k = ?", delta, "page").Exec(); err != nil {
					errs <- err
					return
				}
			}
		}(int64(w - 2))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int64
	if err := s.Query("SELECT n FROM go_counters.hits WHERE k = ?", "page").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("n = %d, want %d", n, want)
	}
}

func TestCounterBatchAndSetRefused(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_counter_batch")
	mustExec(t, s, "CREATE TABLE go_counter_batch.hits (k text PRIMARY KEY, n counter)")
	for round := 0; round < 3; round++ {
		b := s.NewBatch(gocql.CounterBatch)
		b.Query("UPDATE go_counter_batch.hits SET n = n + ? WHERE k = ?", int64(5), "a")
		b.Query("UPDATE go_counter_batch.hits SET n = n - ? WHERE k = ?", int64(2), "b")
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int64{}
	iter := s.Query("SELECT k, n FROM go_counter_batch.hits").Iter()
	var k string
	var n int64
	for iter.Scan(&k, &n) {
		got[k] = n
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"] != 15 || got["b"] != -6 {
		t.Errorf("counters %v, want a=15 b=-6", got)
	}
	err := s.Query("UPDATE go_counter_batch.hits SET n = ? WHERE k = ?", int64(1), "a").Exec()
	if errorCode(err) != gocql.ErrCodeInvalid {
		t.Errorf("SET n = ? on a counter: %v, want Invalid", err)
	}
}
