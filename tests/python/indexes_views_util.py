"""Helpers shared by the index and view driver tests
(test_driver_indexes_views.py, test_driver_views.py)."""

import time

from cassandra.query import SimpleStatement

FILTERING = ("Cannot execute this query as it might involve data filtering and "
             "thus may have unpredictable performance. If you want to execute "
             "this query despite the performance unpredictability, use ALLOW FILTERING")
VIEW_WRITE = "Cannot directly modify a materialized view"


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def record_events(cluster):
    """The SCHEMA_CHANGE events `cluster`'s control connection receives
    (as test_driver_events.py: the driver has no public schema listener)."""
    events = []
    control = cluster.control_connection
    handle = control._handle_schema_change

    def recording(event):
        events.append((event["target_type"], event["change_type"],
                       event.get("keyspace"), event.get("table")))
        return handle(event)

    control._handle_schema_change = recording
    return events


def paged(session, query, args=None, fetch_size=7, consistency=None):
    """Every row of `query`, read `fetch_size` rows per page; asserts the
    driver really paged when the result is larger than a page."""
    if isinstance(query, str):
        statement = SimpleStatement(query, fetch_size=fetch_size)
    else:
        statement = query.bind(args or ())
        statement.fetch_size = fetch_size
        args = None
    if consistency is not None:
        statement.consistency_level = consistency
    result = session.execute(statement, args)
    rows = []
    pages = 0
    while True:
        pages += 1
        rows.extend(result.current_rows)
        if not result.has_more_pages:
            break
        result.fetch_next_page()
    assert pages >= len(rows) // fetch_size, (pages, len(rows))
    return rows
