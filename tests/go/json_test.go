// JSON through gocql: INSERT JSON of a json.Marshal'ed document (collections,
// a frozen UDT, a timestamp, a blob, a case-sensitive column), SELECT JSON
// parsed back with encoding/json, omitted columns null unless DEFAULT UNSET,
// and toJson / fromJson.
package keywisego

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gocql/gocql"
)

// selectJSON runs `stmt` (a SELECT JSON of one row) and decodes its row.
func selectJSON(t *testing.T, s *gocql.Session, stmt string, values ...interface{}) map[string]interface{} {
	t.Helper()
	var text string
	if err := s.Query(stmt, values...).Scan(&text); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	decoder := json.NewDecoder(bytes.NewReader([]byte(text)))
	decoder.UseNumber()
	doc := map[string]interface{}{}
	if err := decoder.Decode(&doc); err != nil {
		t.Fatalf("%s returned %q: %v", stmt, text, err)
	}
	return doc
}

func TestInsertAndSelectJSON(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_json")
	mustExec(t, s, "CREATE TYPE go_json.point (x int, y int)")
	mustExec(t, s, `CREATE TABLE go_json.docs (id int PRIMARY KEY, name text, big bigint,
		ratio double, active boolean, tags set<text>, scores map<text, int>, path list<frozen<point>>,
		origin frozen<point>, created timestamp, raw blob, "camelCase" int)`)

	doc := map[string]interface{}{
		"id": 1, "name": "first \"doc\"", "big": int64(9007199254740993), "ratio": 0.25,
		"active": true, "tags": []string{"b", "a"}, "scores": map[string]int{"x": 1, "y": -2},
		"path":   []map[string]int{{"x": 1, "y": 2}, {"x": 3, "y": 4}},
		"origin": map[string]int{"x": 0, "y": 0}, "created": "2026-01-02T03:04:05.678Z",
		"raw": "0xcafe", `"camelCase"`: 7,
	}
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "INSERT INTO go_json.docs JSON ?", string(text))

	got := selectJSON(t, s, "SELECT JSON * FROM go_json.docs WHERE id = ?", 1)
	want := map[string]interface{}{
		"id": json.Number("1"), "name": "first \"doc\"", "big": json.Number("9007199254740993"),
		"ratio": json.Number("0.25"), "active": true, "tags": []interface{}{"a", "b"},
		"scores": map[string]interface{}{"x": json.Number("1"), "y": json.Number("-2")},
		"path": []interface{}{
			map[string]interface{}{"x": json.Number("1"), "y": json.Number("2")},
			map[string]interface{}{"x": json.Number("3"), "y": json.Number("4")}},
		"origin":  map[string]interface{}{"x": json.Number("0"), "y": json.Number("0")},
		"created": "2026-01-02 03:04:05.678Z", "raw": "0xcafe", `"camelCase"`: json.Number("7"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SELECT JSON *:\n got  %v\n want %v", got, want)
	}

	// The same values through the ordinary columns.
	var name string
	var big int64
	var tags []string
	var raw []byte
	var camel int
	if err := s.Query(`SELECT name, big, tags, raw, "camelCase" FROM go_json.docs WHERE id = ?`, 1).
		Scan(&name, &big, &tags, &raw, &camel); err != nil {
		t.Fatal(err)
	}
	if name != doc["name"] || big != 9007199254740993 || !reflect.DeepEqual(tags, []string{"a", "b"}) ||
		!bytes.Equal(raw, []byte{0xca, 0xfe}) || camel != 7 {
		t.Errorf("columns: %q %d %v %x %d", name, big, tags, raw, camel)
	}
}

func TestJSONOmittedColumns(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_json_omit")
	mustExec(t, s, "CREATE TABLE go_json_omit.t (id int PRIMARY KEY, a text, b int, m map<text, int>)")
	mustExec(t, s, "INSERT INTO go_json_omit.t JSON ?", `{"id": 1, "a": "x", "b": 2, "m": {"k": 1}}`)
	mustExec(t, s, "INSERT INTO go_json_omit.t JSON ? DEFAULT UNSET", `{"id": 1, "a": "y"}`)
	got := selectJSON(t, s, "SELECT JSON a, b FROM go_json_omit.t WHERE id = ?", 1)
	if want := map[string]interface{}{"a": "y", "b": json.Number("2")}; !reflect.DeepEqual(got, want) {
		t.Errorf("after DEFAULT UNSET: %v, want %v", got, want)
	}
	mustExec(t, s, "INSERT INTO go_json_omit.t JSON ?", `{"id": 1, "a": "z"}`) // DEFAULT NULL
	got = selectJSON(t, s, "SELECT JSON * FROM go_json_omit.t WHERE id = ?", 1)
	if want := map[string]interface{}{"id": json.Number("1"), "a": "z", "b": nil, "m": nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("after DEFAULT NULL: %v, want %v", got, want)
	}
}

func TestToJSONAndFromJSON(t *testing.T) {
	s := connect(t)
	freshKeyspace(t, s, "go_json_fn")
	mustExec(t, s, "CREATE TABLE go_json_fn.t (id int PRIMARY KEY, m map<text, int>, l list<text>)")
	mustExec(t, s, "INSERT INTO go_json_fn.t (id, m, l) VALUES (?, ?, ?)", 1,
		map[string]int{"p": 3, "q": 4}, []string{"a\"b"})
	var m, l string
	if err := s.Query("SELECT toJson(m), toJson(l) FROM go_json_fn.t WHERE id = ?", 1).Scan(&m, &l); err != nil {
		t.Fatal(err)
	}
	if m != `{"p": 3, "q": 4}` || l != `["a\"b"]` {
		t.Errorf(`toJson(m), toJson(l) = %s, %s; want {"p": 3, "q": 4}, ["a\"b"]`, m, l)
	}
	mustExec(t, s, "INSERT INTO go_json_fn.t (id, l) VALUES (?, ?)", 3, []string{})
	if err := s.Query("SELECT toJson(m), toJson(l) FROM go_json_fn.t WHERE id = ?", 3).Scan(&m, &l); err != nil {
		t.Fatal(err)
	}
	if m != "null" || l != "null" { // an empty list is null
		t.Errorf("toJson of nulls = %q, %q; want the text null", m, l)
	}

	// fromJson() as a value in UPDATE SET and in INSERT VALUES.
	if err := s.Query("UPDATE go_json_fn.t SET m = fromJson(?) WHERE id = ?", `{"r": 5}`, 1).Exec(); err != nil {
		t.Errorf("UPDATE ... SET m = fromJson(?): %v", err)
	}
	if err := s.Query(`INSERT INTO go_json_fn.t (id, l) VALUES (?, fromJson('["x", "y"]'))`, 2).Exec(); err != nil {
		t.Errorf("INSERT ... VALUES (?, fromJson('[...]')): %v", err)
	}
	got := map[int]string{}
	iter := s.Query("SELECT id, toJson(m), toJson(l) FROM go_json_fn.t").Iter()
	var id int
	for iter.Scan(&id, &m, &l) {
		got[id] = m + " " + l
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1: `{"r": 5} ["a\"b"]`, 2: `null ["x", "y"]`, 3: "null null"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after fromJson: %v, want %v", got, want)
	}
}
