#!/usr/bin/env python3
"""Benchmark (not a test) of what `cairn search` shows: only memories with evidence (a shared
word, or a cosine of at least retrieval.search_min_similarity).

Imports the paraphrase set's documents (with their context) into a new home without the seed
pack, runs `cairn search --global --json -k 10` for each question through the real binaries,
and reports per part: recall@5, results shown per question, and the lowest cosine of a
relevant lesson shown in the first 5 with no shared word; then the same for ten off-topic
questions, which should show little or nothing.

Run: cargo build --release --bins && CAIRN_MODEL_DIR=... scripts/search-evidence.py [--no-floor] [BIN_DIR]
(`--no-floor` sets retrieval.search_min_similarity to -1: every nearest memory is shown, as
before the filter.)
"""

import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if a != "--no-floor"]
NO_FLOOR = "--no-floor" in sys.argv[1:]
BIN = ARGS[0] if ARGS else os.path.join(REPO, "target", "release")
OFF_TOPIC = [
    "a recipe for lemon cake",
    "how long to boil an egg",
    "best hiking trails near the lake",
    "who won the football match last night",
    "how to knit a scarf for winter",
    "what wine goes with fish",
    "when do tulips bloom",
    "how to train a puppy to sit",
    "cheap flights to lisbon in may",
    "zxqv blorp frandle",
]


def main():
    data = json.load(open(os.path.join(REPO, "tests", "data", "paraphrase-set.json")))
    home = tempfile.mkdtemp(prefix="cairn-search-evidence-")
    env = dict(os.environ, CAIRN_HOME=home, CAIRN_SEED_PACK="off")
    cairn = os.path.join(BIN, "cairn")

    def run(*args):
        out = subprocess.run([cairn, *args], env=env, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            sys.exit(f"cairn {' '.join(args)} failed: {out.stderr}")
        return out.stdout

    if NO_FLOOR:
        os.makedirs(os.path.join(home, "config"), exist_ok=True)
        with open(os.path.join(home, "config", "tuneables.json"), "w") as f:
            json.dump({"retrieval": {"search_min_similarity": -1}}, f)
    run("up", "--lite")
    try:
        # Wait for the model, so that every search is hybrid.
        for _ in range(300):
            if json.loads(run("status", "--json")).get("model") != "loading":
                break
        lines = os.path.join(home, "docs.jsonl")
        with open(lines, "w") as f:
            for d in data["documents"]:
                f.write(json.dumps({k: d[k] for k in ("id", "text", "category", "context", "tags") if k in d}) + "\n")
        print(run("import", lines, "--global").strip())

        def search(question):
            return json.loads(run("search", "--global", "--json", "-k", "10", question))

        for part in ("tune", "report"):
            queries = [q for q in data["queries"] if q["split"] == part]
            found, shown, lowest = 0, 0, None
            for q in queries:
                v = search(q["question"])
                results = v["results"]
                shown += len(results)
                top = [r["id"] for r in results[:5]]
                if any(r in top for r in q["relevant"]):
                    found += 1
                for r in results[:5]:
                    # No shared word, as cairn's keyword index sees words: no BM25 score.
                    if r["id"] in q["relevant"] and r["bm25"] == 0:
                        lowest = r["similarity"] if lowest is None else min(lowest, r["similarity"])
            print(f"{part}: {len(queries)} questions, recall@5 {found / len(queries):.3f}, "
                  f"{shown / len(queries):.1f} results per question, lowest cosine of a relevant lesson "
                  f"in the first 5 with no shared word {lowest if lowest is None else round(lowest, 3)}")
        counts = [len(search(q)["results"]) for q in OFF_TOPIC]
        print(f"off-topic: {len(OFF_TOPIC)} questions, results shown {counts} ({sum(counts)} of {10 * len(OFF_TOPIC)})")
    finally:
        run("down")


if __name__ == "__main__":
    main()
