"""The pytest plugin behind ``refjax-conformance``: outcomes per SPEC.md area,
shown live while the suite runs (SPEC BE-9 .. BE-11).

``refjax-conformance`` loads this module with ``-p`` (so that pytest-xdist's
workers load it too) and registers one ``AreaTally`` in the process that
reports.  Every process tags each collected test with the SPEC clause it
cites (a report user property, which travels from xdist workers to the
controller with the report); a worker also sends the number of tests per
area with its first report, because the controller collects nothing itself.
The tally counts passed/failed/skipped per area and clause from the reports
alone, so the counts are the same with and without ``-n``.

While the run goes on, a terminal shows a live table of the areas (rich);
a log or a pipe gets one plain line per completed area and a progress line
every ``HEARTBEAT_S`` seconds instead.

PYTEST_DONT_REWRITE: the CLI imports this module before pytest loads it.
"""
import collections
import os
import sys
import time

import pytest

CLAUSE_PROPERTY = "spec_clause"          # report user property: the cited clause
TOTALS_PROPERTY = "spec_area_totals"     # sent once per xdist worker: {area: tests}
HEARTBEAT_S = 60                         # seconds between plain progress lines
PROGRESS_MODES = ("auto", "live", "plain", "off")


def clause_of(item):
    """The SPEC clause a collected test cites, ``UNCITED`` if none."""
    marker = item.get_closest_marker("spec")
    return marker.args[0] if marker else "UNCITED"


def area_of(clause):
    return clause.split("-")[0]


def area_totals(items):
    return dict(collections.Counter(area_of(clause_of(item)) for item in items))


# -- every process: tag each test with its clause ---------------------------

class _Tagger:
    """Puts each test's clause on its reports; in an xdist worker, also the
    per-area test counts on the first report it sends."""

    def __init__(self, worker):
        self.worker = worker
        self.totals = None

    def pytest_collection_finish(self, session):
        for item in session.items:
            item.user_properties.append((CLAUSE_PROPERTY, clause_of(item)))
        self.totals = area_totals(session.items)

    @pytest.hookimpl(tryfirst=True)     # before xdist sends the report on
    def pytest_runtest_logreport(self, report):
        if self.worker and self.totals is not None:
            report.user_properties.append((TOTALS_PROPERTY, self.totals))
            self.totals = None


def pytest_configure(config):
    config.pluginmanager.register(_Tagger(hasattr(config, "workerinput")),
                                  "refjax-conformance-tagger")


# -- the reporting process: the tally and its display -----------------------

def counts_line(c):
    return f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"


def elapsed_text(seconds):
    minutes, s = divmod(int(seconds), 60)
    return f"{minutes}m{s:02d}s" if minutes else f"{s}s"


class AreaTally:
    """Counts outcomes per SPEC area and clause, keeps each failure's message
    and reproducer, and shows progress per area while the run goes on
    (``progress``: ``auto`` picks ``live`` on a terminal, else ``plain``)."""

    def __init__(self, titles=None, progress="off"):
        self.titles = titles or {}
        self.progress = progress
        self.counts = collections.defaultdict(collections.Counter)
        self.clauses = collections.defaultdict(collections.Counter)
        self.failures = []
        self.totals = None            # {area: tests}, once known
        self.clause_of = {}           # serial runs: nodeid -> clause
        self.current = ""             # the file of the last test started
        self.start = time.monotonic()
        self._display = None

    # collection: known here in a serial run, from the first report under xdist
    def pytest_collection_finish(self, session):
        self.clause_of = {item.nodeid: clause_of(item) for item in session.items}
        self.totals = area_totals(session.items)

    def pytest_configure(self, config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        self.start = time.monotonic()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid):
        self.current = nodeid.split("::")[0]
        if self.progress != "off":     # from the first test on: xdist's
            self._display = make_display(self, self.config, self.progress)
            self.progress = "off"      # start-up lines are written by then

    def pytest_runtest_logreport(self, report):
        props = dict(report.user_properties)
        if TOTALS_PROPERTY in props and not self.totals:
            self.totals = dict(props[TOTALS_PROPERTY])
        # One count per test: its call, or the setup/teardown that stopped it.
        if not (report.when == "call" or report.outcome != "passed"):
            return
        clause = props.get(CLAUSE_PROPERTY) or self.clause_of.get(report.nodeid, "?")
        self.counts[area_of(clause)][report.outcome] += 1
        self.clauses[clause][report.outcome] += 1
        if report.outcome == "failed":
            self.failures.append({
                "test": report.nodeid, "clause": clause,
                "message": props.get("disagreement") or _last_lines(report.longreprtext),
                "reproducer": props.get("reproducer")})
        if self._display is not None:
            self._display.update(area_of(clause))

    def pytest_sessionfinish(self):
        self.stop_display()

    def pytest_unconfigure(self):
        self.stop_display()

    def stop_display(self):
        if self._display is not None:
            self._display.stop()
            self._display = None

    # what the displays show
    def done(self, area):
        return sum(self.counts[area].values())

    def total(self):
        overall = collections.Counter()
        for c in self.counts.values():
            overall.update(c)
        return overall

    def areas(self):
        return sorted(set(self.totals or ()) | set(self.counts))

    def elapsed(self):
        return time.monotonic() - self.start


def _last_lines(text, n=30):
    return "\n".join(text.strip().splitlines()[-n:])


def make_display(tally, config, mode):
    """The display for ``mode`` (SPEC BE-9, BE-10), or None."""
    if mode == "auto":
        mode = "live" if sys.stdout.isatty() and os.environ.get("TERM") != "dumb" else "plain"
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if mode == "off" or reporter is None:
        return None
    if mode == "live":
        try:
            return LiveDisplay(tally, reporter)
        # No rich, no file descriptor, or a pytest whose terminal writer
        # keeps its file elsewhere: plain lines.
        except (ImportError, OSError, ValueError, AttributeError):
            pass
    return PlainDisplay(tally, reporter)


class PlainDisplay:
    """Lines for logs and pipes: one when an area's last test finished, and
    the overall progress every ``HEARTBEAT_S`` seconds (SPEC BE-10)."""

    def __init__(self, tally, reporter):
        self.tally, self.reporter = tally, reporter
        self.finished = set()
        self.last_line = time.monotonic()

    def update(self, area):
        tally = self.tally
        totals = tally.totals or {}
        if sum(tally.total().values()) >= sum(totals.values()):
            return                     # the last test: the final table follows
        if area not in self.finished and totals.get(area) and tally.done(area) >= totals[area]:
            self.finished.add(area)
            self.write(f"area {area} done: {counts_line(tally.counts[area])}")
        elif time.monotonic() - self.last_line >= HEARTBEAT_S:
            self.write(self.overall())

    def overall(self):
        tally = self.tally
        total = tally.total()
        expected = sum((tally.totals or {}).values())
        share = f" ({100 * sum(total.values()) // expected}%)" if expected else ""
        return (f"{sum(total.values())}/{expected or '?'} tests{share}: {counts_line(total)}; "
                f"{len(self.finished)}/{len(tally.areas())} areas done")

    def write(self, text):
        self.last_line = time.monotonic()
        reporter = self.reporter
        writer = reporter.config.get_terminal_writer()
        if writer.width_of_current_line:
            writer.line()
        text = f"[refjax-conformance {elapsed_text(self.tally.elapsed())}] {text}"
        if reporter.showfspath or reporter.showlongtestinfo:
            # pytest ends this line when it names the test or file next,
            # which it does again after it: no blank line, no orphan dots.
            writer.write(text, flush=True)
            reporter.currentfspath = None
        else:                          # dots only (xdist): a line of its own
            writer.line(text, flush=True)

    def stop(self):
        pass


class LiveDisplay:
    """On a terminal: a table of the areas with a bar, passed/failed/skipped
    each, and the overall count and elapsed time, redrawn twice a second
    (rich).  pytest's own lines are printed above it once complete (SPEC
    BE-9).  The table goes when the run ends; the CLI prints the final one."""

    REFRESH_S = 0.25                   # least time between snapshots of the tally

    def __init__(self, tally, reporter):
        from rich.console import Console
        from rich.live import Live
        self.tally = tally
        self.writer = reporter.config.get_terminal_writer()
        if self.writer.width_of_current_line:
            self.writer.line()         # the table starts on a line of its own
        self.saved = self.writer._file
        # A descriptor of its own: while a test runs, pytest captures fd 1.
        self.out = os.fdopen(os.dup(self.saved.fileno()), "w", buffering=1,
                             encoding="utf-8", errors="replace")
        self.console = Console(file=self.out, force_terminal=True)
        self.lines = _LinesAbove(self.console, self.saved)
        self.writer._file = self.lines
        self.snapshot, self.taken = self.take(), time.monotonic()
        self.live = Live(get_renderable=self.render, console=self.console,
                         refresh_per_second=2, transient=True)
        self.live.start()

    def take(self):
        """The tally's numbers, copied: rich draws from its own thread."""
        tally = self.tally
        totals = dict(tally.totals or {})
        rows = [(area, tally.titles.get(area, ""), tally.done(area), totals.get(area),
                 dict(tally.counts[area])) for area in tally.areas()]
        return rows, dict(tally.total()), sum(totals.values()), tally.current

    def update(self, area):
        if time.monotonic() - self.taken >= self.REFRESH_S:
            self.snapshot, self.taken = self.take(), time.monotonic()

    def render(self):
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text
        rows, total, expected, current = self.snapshot
        room = max(3, self.console.size.height - 5)
        if len(rows) > room:    # failing, then running areas go first
            chosen = sorted(rows, key=_urgency)[:room]
            rows = [r for r in rows if r in chosen]
        titled = self.console.width >= 100          # else 80 columns suffice
        table = Table(box=None, padding=(0, 1), header_style="bold")
        headers = ["area", "", "", "tests", "passed", "failed", "skipped"]  # title, bar
        if not titled:
            del headers[1]
        for i, name in enumerate(headers):
            table.add_column(name, justify="right" if i >= len(headers) - 4 else "left",
                             no_wrap=True)
        for area, title, done, of, c in rows:
            failed = c.get("failed", 0)
            cells = [area, title[:32]] if titled else [area]
            table.add_row(*cells, ProgressBar(total=of, completed=done, width=20),
                          f"{done}/{of or '?'}", str(c.get("passed", 0)),
                          Text(str(failed), style="bold red" if failed else ""),
                          str(c.get("skipped", 0)))
        done = sum(total.values())
        summary = Text(f" {done}/{expected or '?'} tests  {counts_line(_full(total))}  "
                       f"{elapsed_text(self.tally.elapsed())}  {current}", no_wrap=True,
                       overflow="ellipsis", style="bold red" if total.get("failed") else "bold")
        footer = Table.grid(padding=(0, 1))
        footer.add_row(ProgressBar(total=expected or None, completed=done, width=30), summary)
        return Group(table, footer)

    def stop(self):
        self.snapshot = self.take()    # the last frame shows the whole run
        self.live.stop()
        self.writer._file = self.saved
        if self.lines.buffer:          # a line pytest has not ended yet
            self.saved.write(self.lines.buffer)
        self.out.close()


def _urgency(row):
    _, _, done, of, c = row
    running = 0 < done and (of is None or done < of)
    return (not c.get("failed"), not running, of is not None and done >= of)


def _full(counter):
    return collections.Counter({"passed": 0, "failed": 0, "skipped": 0, **counter})


class _LinesAbove:
    """The file pytest's terminal writer writes to while the live table is
    shown: each complete line is printed above the table."""

    def __init__(self, console, file):
        self.console, self.file, self.buffer = console, file, ""

    def write(self, text):
        from rich.text import Text
        *lines, self.buffer = (self.buffer + text).split("\n")
        if lines:
            self.console.print(Text.from_ansi("\n".join(lines)))
        return len(text)

    def flush(self):
        pass                           # a partial line waits for its end

    def __getattr__(self, name):
        return getattr(self.file, name)
