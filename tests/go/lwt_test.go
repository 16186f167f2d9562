// Lightweight transactions through gocql: INSERT IF NOT EXISTS and UPDATE IF
// with MapScanCAS / ScanCAS (applied, then not applied with the current
// values), DELETE IF EXISTS, a conditional batch, and concurrent
// compare-and-set increments that must not lose an update.
package keywisego

import (
	"sync"
	"testing"

	"github.com/gocql/gocql"
)

func TestInsertIfNotExists(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_lwt")
	mustExec(t, s, "CREATE TABLE go_lwt.accounts (id int PRIMARY KEY, owner text, balance int)")
	insert := "INSERT INTO go_lwt.accounts (id, owner, balance) VALUES (?, ?, ?) IF NOT EXISTS"

	existing := map[string]interface{}{}
	applied, err := s.Query(insert, 1, "ada", 100).MapScanCAS(existing)
	if err != nil || !applied {
		t.Fatalf("first insert: applied %v, err %v", applied, err)
	}
	if len(existing) != 0 {
		t.Errorf("applied insert returned values %v", existing)
	}

	existing = map[string]interface{}{}
	applied, err = s.Query(insert, 1, "bob", 5).MapScanCAS(existing)
	if err != nil || applied {
		t.Fatalf("second insert: applied %v, err %v", applied, err)
	}
	if existing["id"] != 1 || existing["owner"] != "ada" || existing["balance"] != 100 {
		t.Errorf("second insert returned %v, want id 1, owner ada, balance 100", existing)
	}

	var owner string
	var balance int
	if err := s.Query("SELECT owner, balance FROM go_lwt.accounts WHERE id = ?", 1).
		Scan(&owner, &balance); err != nil || owner != "ada" || balance != 100 {
		t.Errorf("row = %q %d (%v), want ada 100", owner, balance, err)
	}
}

func TestUpdateIf(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_lwt_update")
	mustExec(t, s, "CREATE TABLE go_lwt_update.accounts (id int PRIMARY KEY, owner text, balance int)")
	mustExec(t, s, "INSERT INTO go_lwt_update.accounts (id, owner, balance) VALUES (?, ?, ?)", 1, "ada", 100)
	update := "UPDATE go_lwt_update.accounts SET balance = ? WHERE id = ? IF balance = ?"

	var current int
	applied, err := s.Query(update, 70, 1, 100).ScanCAS(&current)
	if err != nil || !applied {
		t.Fatalf("UPDATE IF balance = 100: applied %v, err %v", applied, err)
	}
	current = -1
	applied, err = s.Query(update, 0, 1, 100).ScanCAS(&current)
	if err != nil || applied || current != 70 {
		t.Fatalf("UPDATE IF balance = 100 again: applied %v, current %d, err %v; want false, 70",
			applied, current, err)
	}

	// Two conditions: the values returned are the conditions' columns.
	var gotOwner string
	var gotBalance int
	applied, err = s.Query("UPDATE go_lwt_update.accounts SET balance = 0 WHERE id = ? "+
		"IF owner = ? AND balance = ?", 1, "bob", 70).ScanCAS(&gotOwner, &gotBalance)
	if err != nil || applied || gotOwner != "ada" || gotBalance != 70 {
		t.Errorf("UPDATE IF owner = bob AND balance = 70: applied %v, %q %d, err %v; want false, ada 70",
			applied, gotOwner, gotBalance, err)
	}

	applied, err = s.Query("DELETE FROM go_lwt_update.accounts WHERE id = ? IF EXISTS", 2).ScanCAS()
	if err != nil || applied {
		t.Errorf("DELETE IF EXISTS of a missing row: applied %v, err %v", applied, err)
	}
	var balance int
	if err := s.Query("SELECT balance FROM go_lwt_update.accounts WHERE id = ?", 1).Scan(&balance); err != nil || balance != 70 {
		t.Errorf("balance = %d (%v), want 70", balance, err)
	}
}

func TestConditionalBatch(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_lwt_batch")
	mustExec(t, s, "CREATE TABLE go_lwt_batch.ledger (acct int, seq int, amount int, "+
		"total int STATIC, PRIMARY KEY (acct, seq))")
	mustExec(t, s, "INSERT INTO go_lwt_batch.ledger (acct, total) VALUES (?, ?)", 1, 0)

	post := func(seq, amount, oldTotal int) (bool, map[string]interface{}) {
		b := s.NewBatch(gocql.LoggedBatch)
		b.Query("INSERT INTO go_lwt_batch.ledger (acct, seq, amount) VALUES (?, ?, ?) IF NOT EXISTS", 1, seq, amount)
		b.Query("UPDATE go_lwt_batch.ledger SET total = ? WHERE acct = ? IF total = ?", oldTotal+amount, 1, oldTotal)
		values := map[string]interface{}{}
		applied, iter, err := s.MapExecuteBatchCAS(b, values)
		if err != nil {
			t.Fatalf("batch: %v", err)
		}
		iter.Close()
		return applied, values
	}
	if applied, values := post(1, 30, 0); !applied {
		t.Fatalf("first conditional batch not applied: %v", values)
	}
	if applied, values := post(2, 5, 0); applied || values["total"] != 30 {
		t.Fatalf("stale conditional batch: applied %v, values %v; want false with total 30", applied, values)
	}
	var total int
	var count int64
	if err := s.Query("SELECT total, count(*) FROM go_lwt_batch.ledger WHERE acct = ?", 1).
		Scan(&total, &count); err != nil || total != 30 || count != 1 {
		t.Errorf("total %d, rows %d (%v); want 30, 1", total, count, err)
	}
}

// Each goroutine adds one 10 times by compare-and-set, retrying with the
// current value a failed round returns: no increment may be lost.
func TestConcurrentCompareAndSet(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_lwt_cas")
	mustExec(t, s, "CREATE TABLE go_lwt_cas.seq (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO go_lwt_cas.seq (k, v) VALUES (?, ?)", 1, 0)
	const workers, increments = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := 0
			for done := 0; done < increments; {
				current := 0
				applied, err := s.Query("UPDATE go_lwt_cas.seq SET v = ? WHERE k = ? IF v = ?",
					seen+1, 1, seen).ScanCAS(&current)
				if err != nil {
					errs <- err
					return
				}
				if applied {
					seen++
					done++
				} else {
					seen = current
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var v int // read at SERIAL
	if err := s.Query("SELECT v FROM go_lwt_cas.seq WHERE k = ?", 1).
		Consistency(gocql.Consistency(gocql.Serial)).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != workers*increments {
		t.Fatalf("v = %d, want %d", v, workers*increments)
	}
}
