"""Publishing and citing: the CI workflow, the versioned deploy, citations, licences, anchors.

* The workflow files validate against GitHub's workflow schema (check-jsonschema's vendored
  copy, no download) and zizmor finds nothing in them (offline).
* A deploy with mike into a scratch git repository publishes the version and its ``latest``
  alias; with an older version beside it, a page of each opens in Chromium, the selector lists
  both and the older one says it is not the latest release.
* Every page ends with "Cite this page" (text and BibTeX, copy buttons) and carries the
  ``citation_*`` meta tags; every page's footer states both licences.
* Every numbered equation and figure has a unique anchor; every figure has a download link.
"""

from __future__ import annotations

import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from tools.browser import serve

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
SHA_PIN = re.compile(r"^\s*-?\s*uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s*v\d+\.\d+\.\d+\s*$")
CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def _tool(name: str) -> str:
    """A command-line tool installed next to this Python (the project's virtual environment)."""
    path = BIN / name
    if not path.is_file():
        pytest.fail(f"{name} is not installed next to {sys.executable}: pip install -e '.[test]'")
    return str(path)


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


# --------------------------------------------------------------------------------------------
# The workflow files
# --------------------------------------------------------------------------------------------


def _workflows() -> dict[str, dict]:
    assert WORKFLOWS, "no workflow in .github/workflows"
    return {p.name: yaml.safe_load(p.read_text()) for p in WORKFLOWS}


def test_workflows_and_dependabot_match_their_schemas():
    cjs = [sys.executable, "-m", "check_jsonschema"]
    proc = _run([*cjs, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    dependabot = ROOT / ".github" / "dependabot.yml"
    proc = _run([*cjs, "--builtin-schema", "vendor.dependabot", str(dependabot)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ecosystems = {u["package-ecosystem"] for u in yaml.safe_load(dependabot.read_text())["updates"]}
    assert {"github-actions", "pip"} <= ecosystems


def test_zizmor_finds_nothing():
    proc = _run([_tool("zizmor"), "--offline", "--no-progress", str(ROOT / ".github")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr


def test_every_action_is_pinned_to_a_commit_with_its_version():
    for path in WORKFLOWS:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"^\s*-?\s*uses:", line):
                assert SHA_PIN.match(line), f"{path.name}:{n}: not pinned to a full SHA: {line}"


def test_workflow_permissions_and_triggers():
    for name, wf in _workflows().items():
        triggers = wf.get("on", wf.get(True))  # PyYAML reads the key `on` as True
        assert "pull_request_target" not in triggers, name
        assert wf.get("permissions") == {}, f"{name}: workflow-level permissions must be empty"
        for job_name, job in wf["jobs"].items():
            perms = job.get("permissions")
            assert isinstance(perms, dict), f"{name}: job {job_name} sets no permissions"
            writes = [k for k, v in perms.items() if v == "write"]
            if writes:
                assert writes == ["contents"], f"{name}/{job_name}: writes {writes}"
                assert "mike deploy" in json.dumps(job), f"{name}/{job_name} writes, deploys not"
                assert job["concurrency"]["cancel-in-progress"] is False
    ci = _workflows()["ci.yml"]
    triggers = ci.get("on", ci.get(True))
    assert "push" in triggers and "pull_request" in triggers
    assert triggers["push"] is None, "the tests run on every push"
    test_steps = " ".join(s.get("run", "") for s in ci["jobs"]["test"]["steps"])
    assert "make test" in test_steps and "make site" in test_steps
    deploy = ci["jobs"]["deploy"]
    assert deploy["needs"] == "test"
    assert "refs/heads/main" in deploy["if"] and "refs/tags/v" in deploy["if"]
    script = " ".join(s.get("run", "") for s in deploy["steps"])
    assert "mike deploy --push --update-aliases" in script and "latest" in script
    assert "mike set-default --push latest" in script
    assert "make pdf" in script, "the PDF is published with each version"


# --------------------------------------------------------------------------------------------
# CITATION.cff and licences
# --------------------------------------------------------------------------------------------


def test_citation_cff_is_valid_and_matches_the_package():
    cff = ROOT / "CITATION.cff"
    proc = _run(
        [
            sys.executable,
            *("-m", "check_jsonschema", "--builtin-schema", "vendor.citation-file-format"),
            str(cff),
        ]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = yaml.safe_load(cff.read_text())
    assert str(data["version"]) == _version()
    assert set(data["license"]) == {"MIT", "CC-BY-4.0"}
    refs = " ".join(json.dumps(r) for r in data.get("references", []))
    assert "2104.09864" in refs, "the RoFormer paper is credited"


def test_licence_files():
    mit = (ROOT / "LICENSE").read_text()
    assert mit.startswith("MIT License") and "2026 The rope-explained authors" in mit
    cc = (ROOT / "LICENSE-CC-BY-4.0").read_text()
    assert cc.startswith("Creative Commons Attribution 4.0 International")
    assert "Section 3 – License Conditions." in cc


# --------------------------------------------------------------------------------------------
# The built pages: cite block, meta tags, footer, anchors, figure downloads
# --------------------------------------------------------------------------------------------


def _html_pages(site_dir: Path, site_pages: list[str]) -> dict[str, str]:
    return {
        p: (site_dir / p / "index.html").read_text(encoding="utf-8")
        for p in site_pages
        if not p.startswith("print_page")
    }


def _meta(page_html: str) -> dict[str, str]:
    return {
        m.group(1): html.unescape(m.group(2))
        for m in re.finditer(r'<meta name="(citation_[a-z_]+)" content="([^"]*)"', page_html)
    }


def _site_base(site_dir: Path) -> str:
    """The ``site_url`` the site was built with (the first address of its sitemap)."""
    return re.search(r"<loc>([^<]+)</loc>", (site_dir / "sitemap.xml").read_text())[1]


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_every_page_ends_with_a_citation_and_has_meta_tags(site_dir, site_pages, content_pages):
    pages = _html_pages(site_dir, site_pages)
    assert set(content_pages) <= set(pages)
    base = _site_base(site_dir)
    year = str(datetime.datetime.now(datetime.UTC).year)
    for path, page_html in pages.items():
        article = page_html.split('<article class="md-content__inner md-typeset">', 1)[1]
        article = article.split("</article>", 1)[0]
        m = re.search(r'<section class="rope-cite".*?</section>\s*$', article, re.S)
        assert m, f"{path}: the article does not end with the cite block"
        block = m.group(0)
        text = _text(re.search(r'id="cite-text"[^>]*><pre><code>(.*?)</code>', block, re.S)[1])
        bib = _text(re.search(r'id="cite-bibtex"[^>]*><pre><code>(.*?)</code>', block, re.S)[1])
        url = f"{base}dev/{path}"
        meta = _meta(page_html)
        title = meta["citation_title"]
        assert title and title in text, path
        assert "{{" + title.replace("_", "\\_").replace("&", "\\&") + "}}" in bib, path
        for part in ("The rope-explained authors", "RoPE, explained", "version dev", year, url):
            assert part in text, f"{path}: text citation lacks {part!r}: {text}"
        assert bib.startswith("@misc{rope-explained-dev-") and bib.rstrip().endswith("}"), path
        assert f"url          = {{{url}}}" in bib and f"year         = {{{year}}}" in bib, path
        assert bib.count("{") == bib.count("}"), f"{path}: unbalanced BibTeX braces"
        assert meta["citation_author"] == "The rope-explained authors"
        assert meta["citation_publication_date"].startswith(year + "/")
        assert meta["citation_fulltext_html_url"] == url
        assert meta["citation_version"] == "dev"
        if path:
            assert meta["citation_inbook_title"] == "RoPE, explained"


def test_copy_button_copies_the_bibtex(site_url, browser):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        page.goto(site_url + "equations/rope/")
        expected = page.inner_text("#cite-bibtex code")
        button = page.locator(".rope-cite__bibtex button.md-code__button[data-md-type=copy]")
        button.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() == expected.strip() and copied.startswith("@misc{")
        page.locator(".rope-cite__text button.md-code__button[data-md-type=copy]").click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith("The rope-explained authors (") and "\n" not in copied.strip()
    finally:
        context.close()


def test_every_page_footer_states_both_licences(site_dir, site_pages):
    for path, page_html in _html_pages(site_dir, site_pages).items():
        footer = page_html.split('<footer class="md-footer">', 1)[1]
        licence = re.search(
            r'<div class="md-copyright__highlight rope-licence">(.*?)</div>', footer, re.S
        )
        assert licence, f"{path}: no licence line in the footer"
        line = licence.group(1)
        assert f'<a rel="license" href="{CC_BY}">CC BY 4.0</a>' in line, path
        assert re.search(r'<a rel="license" href="[^"]+/blob/main/LICENSE">MIT</a>', line), path
        assert "Text and figures" in line and "Code" in line, path


def test_numbered_equations_and_figures_have_unique_anchors(site_dir, site_pages):
    """Every ``\\tag{N.k}`` sits in a block anchored ``#eq-...``; every figure is ``#fig-...``
    with its number; no id repeats on a page; every figure can be downloaded on its own."""
    n_eq = n_fig = 0
    for path, page_html in _html_pages(site_dir, site_pages).items():
        # ids are attributes of elements: markup quoted inside code listings does not count
        markup = re.sub(r"<(pre|code)\b.*?</\1>", "", page_html, flags=re.S)
        ids = re.findall(r'\sid="([^"]+)"', markup)
        anchors = [i for i in ids if i.startswith(("eq-", "fig-"))]
        assert len(anchors) == len(set(anchors)), f"{path}: repeated anchors"
        assert len(ids) == len(set(ids)), f"{path}: repeated ids"
        tags = re.findall(r"\\tag\{(\d+\.\d+)\}", page_html)
        blocks = re.findall(
            r'<div class="arithmatex" id="eq-[a-z0-9-]+">(.*?)</div>', page_html, re.S
        )
        tagged = [t for b in blocks for t in re.findall(r"\\tag\{(\d+\.\d+)\}", b)]
        assert sorted(tags) == sorted(tagged), f"{path}: numbered equations without an anchor"
        assert len(set(tags)) == len(tags), f"{path}: equation numbers repeat: {tags}"
        n_eq += len(tags)
        figures = re.findall(
            r'<figure class="rope-figure" id="(fig-[a-z0-9-]+)">(.*?)</figure>', page_html, re.S
        )
        numbers = []
        for fig_id, body in figures:
            number = re.search(r'rope-figure__number">Figure (\d+\.\d+)\.<', body)
            assert number, f"{path}#{fig_id}: no number"
            numbers.append(number.group(1))
            alt = re.search(r'<img [^>]*alt="([^"]*)"', body).group(1)
            assert len(alt.split()) >= 5, f"{path}#{fig_id}: alt text too short: {alt!r}"
            tag = re.search(r'<a (?=[^>]*class="rope-figure__download")[^>]*>', body)
            assert tag, f"{path}#{fig_id}: no download link"
            attrs = dict(re.findall(r'([a-z-]+)="([^"]*)"', tag.group(0)))
            href = attrs.get("href", "")
            target = site_dir / urlsplit(urljoin("http://x/" + path, href)).path.lstrip("/")
            assert target.is_file(), f"{path}#{fig_id}: {href} is missing"
            head = target.read_bytes()[:400]
            assert b"<svg" in head, f"{target} is not an SVG"
            assert attrs.get("download") == fig_id[len("fig-") :] + ".svg"
        assert len(set(numbers)) == len(numbers), f"{path}: figure numbers repeat"
        n_fig += len(figures)
        assert markup.count('class="rope-figure"') == len(figures), f"{path}: unanchored figure"
    assert n_eq > 20 and n_fig > 10, (n_eq, n_fig)


# --------------------------------------------------------------------------------------------
# The versioned deploy (mike) in a scratch repository
# --------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
    )
    proc = _run(["git", "-C", str(repo), *args], env=env)
    assert proc.returncode == 0, f"git {' '.join(args)}:\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """The project's files in a scratch git repository, deployed with mike exactly as the
    workflow deploys a release: 0.1.0, aliased ``latest``, the default version.

    This is the run's one build besides the session's. A second, older version is added to the
    published tree the way mike adds one (a folder and an entry in ``versions.json``, here a
    copy of 0.1.0 under the name 0.0.9), so that the version selector and the banner of a
    version that is not the default can be checked without building the site a third time.
    """
    repo = tmp_path_factory.mktemp("deploy") / "repo"
    repo.mkdir()
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT)
    assert listed.returncode == 0, listed.stderr
    for rel in filter(None, listed.stdout.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / rel)
    for shared in ("node_modules", ".cache"):  # MathJax from npm; the figure and notebook caches
        (ROOT / shared).mkdir(exist_ok=True)
        (repo / shared).symlink_to(ROOT / shared)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "snapshot")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    env.update(GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@x.invalid")
    env.update(GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@x.invalid")
    mike = _tool("mike")
    for cmd in (
        [mike, "deploy", "--update-aliases", "0.1.0", "latest"],
        [mike, "set-default", "latest"],
    ):
        proc = _run(cmd, cwd=repo, env=env)
        assert proc.returncode == 0, f"{' '.join(cmd[1:])} failed:\n{proc.stderr[-4000:]}"
    served = repo.parent / "gh-pages"
    served.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "gh-pages"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(served)], input=archive, check=True)
    shutil.copytree(served / "0.1.0", served / "0.0.9")
    versions = json.loads((served / "versions.json").read_text())
    versions.append({"version": "0.0.9", "title": "0.0.9", "aliases": []})
    (served / "versions.json").write_text(json.dumps(versions))
    return repo, served


def test_mike_deploys_the_version_and_its_alias(deployed):
    repo, _ = deployed
    tree = _git(repo, "ls-tree", "--name-only", "gh-pages").split()
    assert {"0.1.0", "latest", "versions.json", "index.html"} <= set(tree)
    versions = json.loads(_git(repo, "show", "gh-pages:versions.json"))
    assert versions == [{"version": "0.1.0", "title": "0.1.0", "aliases": ["latest"]}]
    for folder in ("0.1.0", "latest"):
        listed = _git(repo, "ls-tree", "-r", "--name-only", "gh-pages", folder)
        assert f"{folder}/equations/rope/index.html" in listed.split()
    redirect = _git(repo, "show", "gh-pages:index.html")
    assert "latest/" in redirect


def test_each_deployed_version_opens_and_cites_itself(deployed, browser):
    _, served = deployed
    base = "https://rope-explained.github.io/rope-explained/"
    with serve(served) as url:
        page = browser.new_page()
        try:
            page.goto(url)  # the root redirects to the default version
            page.wait_for_url(re.compile(r"/latest/$"))
            assert page.title().startswith("RoPE, explained")
            for path in ("0.1.0/", "latest/"):
                response = page.goto(url + path + "equations/rope/")
                assert response.ok, path
                cite = page.inner_text("#cite-text")
                assert "version 0.1.0." in cite, cite
                assert f"{base}0.1.0/equations/rope/" in cite, cite
                meta = page.get_attribute('meta[name="citation_version"]', "content")
                assert meta == "0.1.0"
                # Material's version selector lists both versions (read from versions.json).
                page.wait_for_selector(".md-version__list", state="attached")
                listed = page.eval_on_selector_all(
                    ".md-version__link", "e => e.map(a => a.textContent)"
                )
                assert any("0.1.0" in t for t in listed), listed
                assert any("0.0.9" in t for t in listed), listed
            # Versions other than the default one say so in a banner.
            page.goto(url + "0.0.9/")
            page.wait_for_selector("[data-md-component=outdated]:not([hidden])", state="attached")
            assert "not the latest release" in page.inner_text("[data-md-component=outdated]")
            page.goto(url + "0.1.0/")
            banner = page.query_selector("[data-md-component=outdated]")
            assert banner is None or banner.get_attribute("hidden") is not None
        finally:
            page.close()
