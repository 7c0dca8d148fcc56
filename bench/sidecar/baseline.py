#!/usr/bin/env python3
# The study's sidecar baseline, measured again (sage.md §10): pi-context's
# schema as the study describes it (sources, chunks, an FTS5 external-content
# table kept by triggers), its 0.0.x chunker (paragraphs packed to 4 KiB,
# long ones split by lines) and its search (bm25(5.0, 1.0), scope join,
# top 5), on Python's sqlite3. Same corpus shape as bench_sidecar: 200
# sources of 256 KiB, then 40 more stored and timed.
# Usage: baseline.py DBFILE
import hashlib, os, random, sqlite3, statistics, sys, time

SCHEMA = """
CREATE TABLE context_sources(id TEXT PRIMARY KEY, session_id TEXT, project_path TEXT, tool_name TEXT,
  input_summary TEXT, created_at INTEGER, byte_count INTEGER, line_count INTEGER, content_hash TEXT,
  preview_byte_count INTEGER, returned_byte_count INTEGER);
CREATE TABLE context_chunks(id TEXT PRIMARY KEY, source_id TEXT REFERENCES context_sources(id) ON DELETE CASCADE,
  ordinal INTEGER, title TEXT, content TEXT, byte_count INTEGER);
CREATE VIRTUAL TABLE context_chunks_fts USING fts5(title, content, content='context_chunks', content_rowid='rowid');
CREATE TRIGGER context_chunks_ai AFTER INSERT ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(rowid, title, content) VALUES (new.rowid, new.title, new.content); END;
CREATE TRIGGER context_chunks_ad AFTER DELETE ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(context_chunks_fts, rowid, title, content) VALUES ('delete', old.rowid, old.title, old.content); END;
"""
WORDS = ["compiling", "module", "linking", "warning", "error", "test", "passed", "failed", "cache",
         "object", "source", "header", "template", "inline", "static", "thread", "socket", "buffer",
         "request", "response", "timeout", "retry", "parser", "token"]

def log(nbytes, rng, tag):
    out, line, size = [], 0, 0
    while size < nbytes:
        line += 1
        s = "[%d:%d] " % (tag, line) + " ".join(rng.choice(WORDS) for _ in range(6 + rng.randrange(8)))
        s += " src/unit_%d.cc\n" % rng.randrange(5000)
        if line % 40 == 0:
            s += "\n"
        out.append(s)
        size += len(s)
    return "".join(out)

def chunk(text, limit=4096):
    chunks, cur = [], ""
    for para in text.split("\n\n"):
        if len(para.encode()) > limit:
            for ln in para.split("\n"):
                if len((cur + ln + "\n").encode()) > limit and cur:
                    chunks.append(cur); cur = ""
                cur += ln + "\n"
            continue
        if len((cur + para + "\n\n").encode()) > limit and cur:
            chunks.append(cur); cur = ""
        cur += para + "\n\n"
    if cur:
        chunks.append(cur)
    return chunks

def store(db, text, n):
    sid = "ctx_%d" % n
    db.execute("BEGIN")
    db.execute("INSERT INTO context_sources VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               (sid, "s", "/bench/project", "bash", "{}", int(time.time() * 1000), len(text.encode()),
                text.count("\n"), hashlib.sha256(text.encode()).hexdigest(), 0, 0))
    for i, c in enumerate(chunk(text)):
        title = next((l.strip() for l in c.split("\n") if l.strip()), "")[:120]
        db.execute("INSERT INTO context_chunks(id, source_id, ordinal, title, content, byte_count) VALUES (?,?,?,?,?,?)",
                   ("%s_%04d" % (sid, i), sid, i, title, c, len(c.encode())))
    db.execute("COMMIT")

def search(db, q):
    return db.execute("""SELECT c.id, bm25(context_chunks_fts, 5.0, 1.0) AS r FROM context_chunks_fts
        JOIN context_chunks c ON c.rowid = context_chunks_fts.rowid JOIN context_sources s ON s.id = c.source_id
        WHERE context_chunks_fts MATCH ? AND s.session_id = ? ORDER BY r LIMIT 5""", (q, "s")).fetchall()

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]

def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    rng = random.Random(42)
    for i in range(200):
        t = log(256 * 1024, rng, i)
        if i == 100:
            t = t[: len(t) // 2] + "\nzebra_rare_marker_7q appears once here\n" + t[len(t) // 2 :]
        store(db, t, i)
    fresh = [log(256 * 1024, rng, 1000 + i) for i in range(40)]
    put = []
    for i, t in enumerate(fresh):
        t0 = time.perf_counter(); store(db, t, 1000 + i); put.append((time.perf_counter() - t0) * 1000)
    rare, common = [], []
    for _ in range(200):
        t0 = time.perf_counter(); search(db, '"zebra_rare_marker_7q"'); rare.append((time.perf_counter() - t0) * 1000)
    for _ in range(50):
        t0 = time.perf_counter(); search(db, '"linking" "timeout"'); common.append((time.perf_counter() - t0) * 1000)
    print("| baseline (pi-context schema, Python sqlite3 %s), same run | p50 | p95 |" % sqlite3.sqlite_version)
    print("|---|---|---|")
    print("| store 256 KiB | %.2f ms | %.2f ms |" % (pct(put, 0.5), pct(put, 0.95)))
    print("| search rare term | %.3f ms | %.3f ms |" % (pct(rare, 0.5), pct(rare, 0.95)))
    print("| search two common terms | %.2f ms | %.2f ms |" % (pct(common, 0.5), pct(common, 0.95)))

main()
