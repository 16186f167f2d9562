// Statements prepared before a schema change, through gocql (protocol v4,
// which asks EXECUTE to skip the result metadata): after ALTER TABLE ADD a
// `SELECT *` prepared before must return the new column and rows that
// decode. Cassandra 4 evicts the statement (UNPREPARED) and gocql prepares
// it again; gocql never reads metadata sent in a skip-metadata response.
package keywisego

import (
	"reflect"
	"testing"
)

func TestSelectStarPreparedBeforeAlterTableAdd(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_prepared")
	mustExec(t, s, "CREATE TABLE go_prepared.t (k int, c int, a int, PRIMARY KEY (k, c))")
	const selectAll = "SELECT * FROM go_prepared.t WHERE k = ?"
	if err := s.Query(selectAll, 1).Exec(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "ALTER TABLE go_prepared.t ADD b int")
	for c := 0; c < 3; c++ {
		mustExec(t, s, "INSERT INTO go_prepared.t (k, c, a, b) VALUES (?, ?, ?, ?)", 1, c, 10+c, 100+c)
	}
	iter := s.Query(selectAll, 1).Iter()
	var rows []map[string]interface{}
	for row := map[string]interface{}{}; iter.MapScan(row); row = map[string]interface{}{} {
		rows = append(rows, row)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	var want []map[string]interface{}
	for c := 0; c < 3; c++ {
		want = append(want, map[string]interface{}{"k": 1, "c": c, "a": 10 + c, "b": 100 + c})
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("SELECT * prepared before ALTER TABLE ADD b:\n got  %v\n want %v", rows, want)
	}
}
