"""api._Pool hands out work in chunks that shrink as the work left does: results in order, every
job once, and the last chunks of one job each (no worker waits long on another's last chunk)."""
from qmigrate import api


def _square(number):
    return number * number


def test_results_in_order_and_chunks_that_shrink(monkeypatch):
    sizes = []
    send = api._Pool._send

    def recording(self, worker, function, chunk, jobs_list, busy):
        if chunk:
            sizes.append(len(chunk))
        return send(self, worker, function, chunk, jobs_list, busy)

    monkeypatch.setattr(api._Pool, "_send", recording)
    with api._Pool(2) as pool:
        assert pool.map(_square, list(range(300))) == [n * n for n in range(300)]
    assert sum(sizes) == 300
    assert sizes[0] == 32 and sizes[-1] == 1 and sizes[-2] == 1
    assert all(later <= earlier for earlier, later in zip(sizes, sizes[1:]))
