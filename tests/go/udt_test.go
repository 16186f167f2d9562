// User-defined types through gocql: a non-frozen UDT column, a frozen one and
// a list of frozen values, written from structs with cql tags and from maps
// and read back into structs; one field of the non-frozen column updated
// alone; ALTER TYPE ADD seen by old rows (the new field null), by new writes
// and by a statement prepared before it; the type in gocql's metadata.
package keywisego

import (
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

type address struct {
	Street string `cql:"street"`
	City   string `cql:"city"`
	Zip    int    `cql:"zip"`
}

// The same type after ALTER TYPE ... ADD country text.
type addressV2 struct {
	Street  string `cql:"street"`
	City    string `cql:"city"`
	Zip     int    `cql:"zip"`
	Country string `cql:"country"`
}

// createPeople makes `keyspace` with the address type and the people table.
func createPeople(t *testing.T, s *gocql.Session, keyspace string) {
	freshKeyspace(t, s, keyspace)
	mustExec(t, s, "CREATE TYPE "+keyspace+".address (street text, city text, zip int)")
	mustExec(t, s, "CREATE TABLE "+keyspace+".people (id int PRIMARY KEY, home address, "+
		"work frozen<address>, previous list<frozen<address>>)")
}

func TestUserDefinedTypes(t *testing.T) {
	s := connect(t)
	createPeople(t, s, "go_udt")
	const selectPerson = "SELECT home, work, previous FROM go_udt.people WHERE id = ?"
	home := address{"1 Main St", "Springfield", 12345}
	work := address{"2 Market St", "Shelbyville", 23456}
	previous := []address{{"3 Elm St", "Ogdenville", 34567}, {"4 Oak St", "North Haverbrook", 45678}}
	mustExec(t, s, "INSERT INTO go_udt.people (id, home, work, previous) VALUES (?, ?, ?, ?)",
		1, home, work, previous)
	mustExec(t, s, "INSERT INTO go_udt.people (id, home, work) VALUES (?, ?, ?)", 2,
		map[string]interface{}{"street": "5 Pine St", "city": "Capital City", "zip": 56789},
		map[string]interface{}{"city": "Cypress Creek"}) // street and zip null

	var gotHome, gotWork address
	var gotPrevious []address
	if err := s.Query(selectPerson, 1).Scan(&gotHome, &gotWork, &gotPrevious); err != nil {
		t.Fatal(err)
	}
	if gotHome != home || gotWork != work || !reflect.DeepEqual(gotPrevious, previous) {
		t.Fatalf("row 1 = %+v %+v %+v, want %+v %+v %+v", gotHome, gotWork, gotPrevious, home, work, previous)
	}
	asMap := map[string]interface{}{}
	if err := s.Query("SELECT work FROM go_udt.people WHERE id = ?", 2).Scan(&asMap); err != nil {
		t.Fatal(err)
	}
	if asMap["city"] != "Cypress Creek" || asMap["street"] != "" || asMap["zip"] != 0 {
		t.Errorf("row 2 work as a map = %v, want city Cypress Creek and null street and zip", asMap)
	}

	// One field of the non-frozen column; the frozen one refuses it.
	mustExec(t, s, "UPDATE go_udt.people SET home.city = ? WHERE id = ?", "Capital City", 1)
	var city string
	if err := s.Query("SELECT home.city FROM go_udt.people WHERE id = ?", 1).Scan(&city); err != nil || city != "Capital City" {
		t.Errorf("home.city = %q (%v), want Capital City", city, err)
	}
	if err := s.Query(selectPerson, 1).Scan(&gotHome, &gotWork, &gotPrevious); err != nil {
		t.Fatal(err)
	}
	if want := (address{"1 Main St", "Capital City", 12345}); gotHome != want || gotWork != work {
		t.Errorf("after SET home.city: home %+v work %+v, want %+v %+v", gotHome, gotWork, want, work)
	}
	err := s.Query("UPDATE go_udt.people SET work.city = ? WHERE id = ?", "X", 1).Exec()
	if errorCode(err) != gocql.ErrCodeInvalid {
		t.Errorf("SET work.city on a frozen UDT: %v, want Invalid", err)
	}
}

func TestAlterTypeAddField(t *testing.T) {
	s := connect(t)
	createPeople(t, s, "go_udt_alter")
	checkTypeMetadata(t, s, "go_udt_alter", []string{"street", "city", "zip"})
	const selectPerson = "SELECT home, work, previous FROM go_udt_alter.people WHERE id = ?"
	work := address{"2 Market St", "Shelbyville", 23456}
	mustExec(t, s, "INSERT INTO go_udt_alter.people (id, home, work, previous) VALUES (?, ?, ?, ?)",
		1, address{"1 Main St", "Springfield", 12345}, work, []address{work})
	var home, gotWork address
	var previous []address
	if err := s.Query(selectPerson, 1).Scan(&home, &gotWork, &previous); err != nil {
		t.Fatal(err)
	}

	mustExec(t, s, "ALTER TYPE go_udt_alter.address ADD country text")
	checkTypeMetadata(t, s, "go_udt_alter", []string{"street", "city", "zip", "country"})
	var home2, work2 addressV2
	var previous2 []addressV2
	if err := s.Query(selectPerson, 1).Scan(&home2, &work2, &previous2); err != nil {
		t.Fatal(err)
	}
	if want := (addressV2{"1 Main St", "Springfield", 12345, ""}); home2 != want {
		t.Errorf("old row after ALTER TYPE: home %+v, want %+v", home2, want)
	}
	if want := (addressV2{"2 Market St", "Shelbyville", 23456, ""}); work2 != want || len(previous2) != 1 {
		t.Errorf("old row after ALTER TYPE: work %+v previous %+v, want %+v and 1 address", work2, previous2, want)
	}

	mustExec(t, s, "UPDATE go_udt_alter.people SET home.country = ? WHERE id = ?", "US", 1)
	newWork := addressV2{"6 Bay Rd", "Sydney", 2000, "AU"}
	mustExec(t, s, "UPDATE go_udt_alter.people SET work = ?, previous = previous + ? WHERE id = ?",
		newWork, []addressV2{newWork}, 1)
	wantHome := addressV2{"1 Main St", "Springfield", 12345, "US"}
	wantPrevious := []addressV2{{"2 Market St", "Shelbyville", 23456, ""}, newWork}
	// First through a statement prepared now, then through the one prepared
	// before the ALTER: Cassandra evicts that one and gocql, told UNPREPARED,
	// prepares it again and learns the fourth field.
	for _, stmt := range []string{selectPerson + " LIMIT 1", selectPerson} {
		home2, work2, previous2 = addressV2{}, addressV2{}, nil
		if err := s.Query(stmt, 1).Scan(&home2, &work2, &previous2); err != nil {
			t.Fatal(err)
		}
		if home2 != wantHome || work2 != newWork || !reflect.DeepEqual(previous2, wantPrevious) {
			t.Errorf("%s\n after writing country: home %+v work %+v previous %+v\n want %+v %+v %+v",
				stmt, home2, work2, previous2, wantHome, newWork, wantPrevious)
		}
	}
}

// checkTypeMetadata waits (10 s at most: gocql refreshes its cached
// metadata on the SCHEMA_CHANGE event) until gocql's metadata for the
// keyspace's address type has `fields`, all text but zip (int).
func checkTypeMetadata(t *testing.T, s *gocql.Session, keyspace string, fields []string) {
	t.Helper()
	var names []string
	var types []gocql.Type
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ks, err := s.KeyspaceMetadata(keyspace)
		if err != nil {
			t.Fatalf("KeyspaceMetadata: %v", err)
		}
		udt, ok := ks.UserTypes["address"]
		names, types = nil, nil
		if ok {
			names = udt.FieldNames
			for _, ti := range udt.FieldTypes {
				types = append(types, ti.Type())
			}
		}
		if reflect.DeepEqual(names, fields) || time.Now().After(deadline) {
			break
		}
	}
	if !reflect.DeepEqual(names, fields) {
		t.Fatalf("metadata of %s.address: fields %v, want %v", keyspace, names, fields)
	}
	for i, name := range names {
		want := gocql.TypeText // system_schema.types says "text"
		if name == "zip" {
			want = gocql.TypeInt
		}
		if types[i] != want {
			t.Errorf("metadata of %s.address: field %s has type %v, want %v", keyspace, name, types[i], want)
		}
	}
}
