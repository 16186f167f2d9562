"""Reading a node's /metrics in tests: scraped over HTTP and parsed with
the Prometheus client library's own text-format parser."""

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def scrape(url):
    """{(sample name, sorted label pairs): value} of the endpoint at url."""
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples, name, **labels):
    """One sample's value; 0 when absent."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples, name, **labels):
    """The sum of every sample of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items()
               if n == name and want <= set(ls))
