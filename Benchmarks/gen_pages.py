#!/usr/bin/env python3
"""Writes the render-throughput benchmark inputs (benchmark 1).

    python3 Benchmarks/gen_pages.py --pages 10000 --out Benchmarks/work/pages

makes two projects with the *same* Markdown files (seeded, deterministic):

  OUT/dossier/  dossier.yml + content/pages/pNNNNN.md
  OUT/hugo/     hugo.toml   + content/pages/pNNNNN.md + layouts (copied from
                Benchmarks/peers/hugo-pages/, equivalent to Dossier's layout/page/home)

Each page has YAML front matter (title, summary), headings, paragraphs with emphasis,
code and links, a list, a GFM table and a fenced code block (about 2 KB).
"""
import argparse
import random
import shutil
from pathlib import Path

WORDS = ("participant session string recall latency keystroke memorize verify entropy "
         "password typing error backspace median plane keyboard study cohort practice "
         "target login attempt correct interval dwell flight digraph mean summary").split()


def sentence(rng, n=None):
    n = n or rng.randint(8, 18)
    w = [rng.choice(WORDS) for _ in range(n)]
    i = rng.randrange(n)
    w[i] = f"*{w[i]}*"
    j = rng.randrange(n)
    if j != i:
        w[j] = f"`{w[j]}`"
    s = " ".join(w)
    return s[0].upper() + s[1:] + "."


def page(rng, k, total):
    title = f"Page {k:05d}: {rng.choice(WORDS)} {rng.choice(WORDS)}"
    other = rng.randint(1, total)
    lines = ["---", f'title: "{title}"', f'summary: "Generated page {k} for the render benchmark."', "---", "",
             f"# {title}", "", " ".join(sentence(rng) for _ in range(4)), "",
             "## Method", "", " ".join(sentence(rng) for _ in range(3)), "",
             f"See [page {other}](../p{other:05d}/index.html) and [the project site](https://example.org/{k}).", "",
             "- " + sentence(rng, 6), "- " + sentence(rng, 6), "- " + sentence(rng, 6), "",
             "## Results", "",
             "| participant | sessions | recall | median latency (ms) |",
             "|---|---:|---:|---:|"]
    for r in range(6):
        lines.append(f"| S{rng.randint(1, 9999):04d} | {rng.randint(1, 12)} | {rng.random():.2f} | {rng.randint(90, 400)} |")
    lines += ["", "### Notes", "", " ".join(sentence(rng) for _ in range(3)), "",
              "```python", f"print({k} * {rng.randint(2, 9)})", "```", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.out.exists():
        shutil.rmtree(a.out)
    d, h = a.out / "dossier", a.out / "hugo"
    (d / "content/pages").mkdir(parents=True)
    (h / "content/pages").mkdir(parents=True)
    (d / "dossier.yml").write_text("title: Render benchmark\ndescription: Generated pages.\n"
                                   "base_url: https://bench.example.org/\noutput: _site\n")
    peers = Path(__file__).resolve().parent / "peers"
    # The page and base layouts are shared with the study peer; the home page is this one's.
    shutil.copytree(peers / "hugo-layouts", h / "layouts")
    shutil.copytree(peers / "hugo-pages/layouts", h / "layouts", dirs_exist_ok=True)
    shutil.copy(peers / "hugo-pages/hugo.toml", h / "hugo.toml")
    for k in range(1, a.pages + 1):
        text = page(rng, k, a.pages)
        (d / f"content/pages/p{k:05d}.md").write_text(text)
        (h / f"content/pages/p{k:05d}.md").write_text(text)


if __name__ == "__main__":
    main()
