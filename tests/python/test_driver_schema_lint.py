"""Schema lint through the Python driver (docs/advisor.md): CREATE TABLE
and ALTER TABLE return the lint's findings as protocol warnings, which the
driver exposes on the response future; the statement itself succeeds.
`schema_lint_enabled: false` in keywise.yaml switches them off for the
node."""

from conftest import Node, create_keyspace, driver_cluster


def warnings_of(session, cql):
    future = session.execute_async(cql)
    future.result()
    return future.warnings or []


def test_lint_warnings_reach_the_driver(session):
    create_keyspace(session, "lint")
    warnings = warnings_of(
        session, "CREATE TABLE lint.events (ts timestamp PRIMARY KEY, v text)")
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("time-partition-key: the partition key "
                                  "of lint.events is a time"), warnings
    assert "PRIMARY KEY ((bucket), ts)" in warnings[0], warnings
    # The table exists: a warning is not an error.
    session.execute("INSERT INTO lint.events (ts, v) VALUES (0, 'a')")
    assert warnings_of(session, "CREATE TABLE lint.good (userid uuid, "
                       "ts timestamp, v text, PRIMARY KEY ((userid), ts))") \
        == []
    # ALTER TABLE warns about what it made worse.
    assert warnings_of(session, "CREATE TABLE lint.meters (meter_id int "
                       "PRIMARY KEY, value double)") == []
    warnings = warnings_of(session, "ALTER TABLE lint.meters ADD ts timestamp")
    assert [w.split(":")[0] for w in warnings] == [
        "history-without-clustering"], warnings
    assert warnings_of(session, "ALTER TABLE lint.meters WITH lint = false") \
        == []


def test_lint_switched_off_for_the_node():
    node = Node(extra_config="schema_lint_enabled: false\n")
    cluster = driver_cluster(node)
    try:
        session = cluster.connect()
        create_keyspace(session, "quiet")
        assert warnings_of(session, "CREATE TABLE quiet.events "
                           "(ts timestamp PRIMARY KEY, v text)") == []
    finally:
        cluster.shutdown()
        node.stop()
