"""JSON through the DataStax Python driver: a prepared INSERT JSON ? fed
with json.dumps documents, SELECT JSON read back with json.loads, toJson()
in a selection, and the errors."""

import datetime
import json
import uuid

import pytest
from cassandra import InvalidRequest

from conftest import create_keyspace


@pytest.fixture(scope="module")
def ks(session):
    create_keyspace(session, "js")
    session.execute("CREATE TABLE IF NOT EXISTS js.events (id uuid PRIMARY KEY, "
                    "at timestamp, tags set<text>, attrs map<text, int>, "
                    "score double, note text)")
    return "js"


def test_insert_json_prepared_and_select_json_round_trip(session, ks):
    insert = session.prepare("INSERT INTO js.events JSON ?")
    # The document is the statement's only bind variable.
    assert [c.name for c in insert.column_metadata] == ["[json]"]
    ids = [uuid.uuid4() for _ in range(3)]
    for i, id_ in enumerate(ids):
        session.execute(insert, [json.dumps({
            "id": str(id_), "at": "2026-01-0%d 10:00:00" % (i + 1),
            "tags": ["b", "a"], "attrs": {"x": i}, "score": i + 0.5,
            "note": 'say "hi"'})])
    for i, id_ in enumerate(ids):
        row = session.execute("SELECT JSON * FROM js.events WHERE id = %s",
                              [id_]).one()
        doc = json.loads(row[0])
        assert doc == {"id": str(id_), "at": "2026-01-0%d 10:00:00.000Z" % (i + 1),
                       "tags": ["a", "b"], "attrs": {"x": i},
                       "score": i + 0.5, "note": 'say "hi"'}
        plain = session.execute("SELECT at, tags FROM js.events WHERE id = %s",
                                [id_]).one()
        assert plain.at == datetime.datetime(2026, 1, i + 1, 10, 0)
        assert plain.tags == {"a", "b"}


def test_default_unset_keeps_other_columns(session, ks):
    id_ = uuid.uuid4()
    session.execute("INSERT INTO js.events JSON %s",
                    [json.dumps({"id": str(id_), "note": "keep", "score": 1})])
    session.execute("INSERT INTO js.events JSON %s DEFAULT UNSET",
                    [json.dumps({"id": str(id_), "score": 2})])
    row = session.execute("SELECT note, score FROM js.events WHERE id = %s",
                          [id_]).one()
    assert (row.note, row.score) == ("keep", 2.0)
    session.execute("INSERT INTO js.events JSON %s",
                    [json.dumps({"id": str(id_), "score": 3})])
    row = session.execute("SELECT note, score FROM js.events WHERE id = %s",
                          [id_]).one()
    assert (row.note, row.score) == (None, 3.0)


def test_to_json_and_errors(session, ks):
    id_ = uuid.uuid4()
    session.execute("INSERT INTO js.events (id, attrs) VALUES (%s, {'k': 1})",
                    [id_])
    row = session.execute("SELECT toJson(attrs), toJson(note) FROM js.events "
                          "WHERE id = %s", [id_]).one()
    assert json.loads(row[0]) == {"k": 1} and row[1] == "null"
    with pytest.raises(InvalidRequest,
                       match="JSON values map contains unrecognized column"):
        session.execute("INSERT INTO js.events JSON %s",
                        [json.dumps({"id": str(id_), "nope": 1})])
    with pytest.raises(InvalidRequest, match="Could not decode JSON string"):
        session.execute("INSERT INTO js.events JSON %s", ["{not json"])
