"""Publishing and citing: the CI workflow, the versioned deploy, citations, licences, anchors.

* The workflow files validate against GitHub's workflow schema (check-jsonschema's vendored
  copy, no download) and zizmor finds nothing in them (offline).
* Only the publish job can write, and it runs nothing but git; the workflow's deploy scripts,
  run against a scratch repository, never force gh-pages and replay a deploy on top of a
  version published meanwhile.
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
import tempfile
import tomllib
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml
from conftest import CLEANUP, YIELDING, background, job_result

from tools.browser import serve_in_child

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
SHA_PIN = re.compile(r"^\s*-?\s*uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s*v\d+\.\d+\.\d+\s*$")
CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def _tool(name: str) -> str:
    """A command-line tool installed next to this Python (the project's virtual environment)."""
    path = BIN / name
    if not path.is_file():
        pytest.fail(f"{name} is not installed next to {sys.executable}: make setup")
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


def _ci() -> dict:
    return _workflows()["ci.yml"]


def _runs(job: dict) -> str:
    return "\n".join(s.get("run", "") for s in job["steps"])


def _step(job: dict, name: str) -> dict:
    (step,) = [s for s in job["steps"] if s.get("name", "").startswith(name)]
    return step


def _expression(value: str, github: dict[str, str]) -> str:
    """Evaluate the ``${{ ... }}`` parts of a workflow string for the given ``github`` context.

    Enough of GitHub's expression language for the concurrency groups: ``github.*``, string
    literals, ``==``/``!=``, ``&&``/``||`` (which return an operand, as in GitHub) and
    ``format()``."""

    def evaluate(expr: str) -> str:
        skeleton = re.sub(r"'[^']*'", "''", expr)  # string literals aside, only these
        assert re.fullmatch(r"[\s\w(),.=!&|']*", skeleton), f"unexpected expression: {expr}"
        expr = re.sub(r"\bformat\(", "_format(", expr)
        expr = expr.replace("&&", " and ").replace("||", " or ")
        expr = re.sub(r"\bgithub\.(\w+)", lambda m: repr(github[m.group(1)]), expr)
        env = {"__builtins__": {}, "_format": lambda f, *a: f.format(*a)}
        return str(eval(expr, env))  # noqa: S307 - only the operators allowed above

    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: evaluate(m.group(1)), value)


def _push(ref: str) -> dict[str, str]:
    """The ``github`` context of a push of ``ref`` (a branch or a tag)."""
    kind, name = re.fullmatch(r"refs/(heads|tags)/(.+)", ref).groups()
    return {
        "ref": ref,
        "ref_name": name,
        "ref_type": "tag" if kind == "tags" else "branch",
        "event_name": "push",
        "workflow": "CI",
    }


def test_workflows_and_dependabot_match_their_schemas():
    cjs = [sys.executable, "-m", "check_jsonschema"]
    proc = _run([*cjs, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    dependabot = ROOT / ".github" / "dependabot.yml"
    proc = _run([*cjs, "--builtin-schema", "vendor.dependabot", str(dependabot)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    updates = yaml.safe_load(dependabot.read_text())["updates"]
    where = {(u["package-ecosystem"], u["directory"]) for u in updates}
    # uv.lock (the uv ecosystem), the pinned uv itself, the actions and KaTeX
    assert {("uv", "/"), ("pip", "/requirements"), ("github-actions", "/"), ("npm", "/")} == where
    assert all(u["cooldown"]["default-days"] >= 7 for u in updates)


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
            assert isinstance(job.get("permissions"), dict), f"{name}: {job_name} sets none"
            for step in job["steps"]:
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False, f"{name}/{job_name}"
    ci = _ci()
    triggers = ci.get("on", ci.get(True))
    assert "push" in triggers and "pull_request" in triggers
    assert triggers["push"] is None, "the tests run on every push"
    writers = {
        job_name: [k for k, v in job["permissions"].items() if v == "write"]
        for job_name, job in ci["jobs"].items()
    }
    writers = {job_name: w for job_name, w in writers.items() if w}
    assert writers == {"pages-publish": ["contents"]}, "only the publish job writes"
    assert ci["jobs"]["pages-build"]["permissions"] == {"contents": "read"}
    assert ci["jobs"]["test"]["permissions"] == {"contents": "read"}


def test_workflow_test_job_runs_make_test_once_and_builds_nothing_else():
    test = _ci()["jobs"]["test"]
    script = _runs(test)
    assert "make test" in script
    for other in ("make site", "make pdf", "mkdocs", "mike"):
        assert other not in script, f"the test job runs {other!r} after make test"


def test_workflow_pages_build_deploys_locally_without_credentials():
    ci = _ci()
    build = ci["jobs"]["pages-build"]
    assert build["needs"] == "test"
    assert "refs/heads/main" in build["if"] and "refs/tags/v" in build["if"]
    script = _runs(build)
    assert "make pdf" in script, "the PDF is published with each version"
    assert "cp rope-explained.pdf docs/" in script and "cp pdf/*.pdf docs/pdf/" in script, (
        "the handout and its chapters' PDFs are files of the deployed site"
    )
    assert "mike deploy --update-aliases" in script and "mike set-default latest" in script
    assert "mike deploy dev" in script
    assert "--push" not in script, "pages-build pushes nothing"
    assert "git bundle create" in script
    text = json.dumps(build)
    assert "secrets." not in text and "github.token" not in text, "pages-build holds no token"
    (upload,) = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-")]
    publish = ci["jobs"]["pages-publish"]
    (download,) = [s for s in publish["steps"] if s.get("uses", "").startswith("actions/downl")]
    assert upload["with"]["name"] == download["with"]["name"]


def test_workflow_pages_publish_runs_only_git_with_a_token_for_one_step():
    ci = _ci()
    publish = ci["jobs"]["pages-publish"]
    assert publish["needs"] == "pages-build"
    assert "refs/heads/main" in publish["if"] and "refs/tags/v" in publish["if"]
    uses = [s["uses"].split("@")[0] for s in publish["steps"] if "uses" in s]
    assert uses == ["actions/download-artifact"], "no checkout, no setup, no third-party code"
    script = _runs(publish)
    commands = {
        line.split()[0]
        for line in script.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "if ", "fi", "then", "else"))
    }
    for forbidden in ("make", "mkdocs", "mike", "python", "npm", "pip", "uv", ".venv/bin/mike"):
        assert forbidden not in commands and f" {forbidden} " not in script, forbidden
    assert "mike deploy" not in script and "make " not in script
    # the token: one step's environment, handed to git per command, never stored
    with_token = [s for s in publish["steps"] if "secrets.GITHUB_TOKEN" in json.dumps(s)]
    assert len(with_token) == 1 and "secrets." in json.dumps(with_token[0]["env"])
    for job_name, job in ci["jobs"].items():
        if job_name != "pages-publish":
            assert "secrets." not in json.dumps(job), job_name
    everything = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "set-url" not in everything and "x-access-token:${" not in everything
    assert not re.search(r"git (-c \S+ )*config\b.*(TOKEN|extraheader)", everything, re.I)
    assert "GIT_CONFIG_VALUE_0" in script, "the header reaches git through its environment"
    pushes = [line for line in script.splitlines() if re.search(r"\bpush\b", line)]
    assert pushes and all(
        "--force" not in p and " -f " not in p and " +refs" not in p for p in pushes
    ), pushes


def test_workflow_release_deploys_have_concurrency_groups_of_their_own():
    """A queued release deploy is never cancelled by a later push to main: no job that runs for
    a tag shares a concurrency group with a job of a push to main (GitHub cancels the pending
    run of a group when another arrives), and no deploy job cancels a running one."""
    jobs = _ci()["jobs"]
    main, tag, tag2 = _push("refs/heads/main"), _push("refs/tags/v1.2.0"), _push("refs/tags/v1.3.0")

    def groups(ctx):
        return {n: _expression(j["concurrency"]["group"], ctx) for n, j in jobs.items()}

    on_main, on_tag, on_tag2 = groups(main), groups(tag), groups(tag2)
    assert not set(on_tag.values()) & set(on_main.values()), (on_tag, on_main)
    assert not set(on_tag.values()) & set(on_tag2.values()), "each release on its own"
    assert on_main["pages-publish"] == "pages-dev"
    assert on_tag["pages-publish"] == "pages-release-v1.2.0"
    for name in ("pages-build", "pages-publish"):
        assert jobs[name]["concurrency"]["cancel-in-progress"] is False, name
        assert "queue" not in jobs[name]["concurrency"]  # the default: one pending run
    comment = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "pending" in comment and "cancel" in comment, "the workflow says why"


# ---- the workflow's deploy scripts, run against a scratch remote with a stand-in for mike ----

FAKE_MIKE = """\
#!{python}
'''Stands in for mike in the workflow's scripts: deploy and set-default are one commit each on
the local gh-pages branch (started from origin/gh-pages, as mike does); list checks a version.'''
import json, os, subprocess, sys, tempfile

def git(*args, **kw):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True, **kw).stdout

def ref(name):
    p = subprocess.run(["git", "rev-parse", "-q", "--verify", name], capture_output=True, text=True)
    return p.stdout.strip()

if not ref("refs/heads/gh-pages") and ref("refs/remotes/origin/gh-pages"):
    git("update-ref", "refs/heads/gh-pages", ref("refs/remotes/origin/gh-pages"))
cmd, *args = sys.argv[1:]
args = [a for a in args if not a.startswith("--")]
parent = ref("refs/heads/gh-pages")
index = dict(os.environ, GIT_INDEX_FILE=tempfile.mktemp())
versions = json.loads(git("show", parent + ":versions.json")) if parent else {{}}
if cmd == "list":
    sys.exit(0 if args[0] in versions or args[0] in sum(versions.values(), []) else 1)
files = {{}}
if cmd == "deploy":
    version, *aliases = args
    for other in versions.values():
        other[:] = [a for a in other if a not in aliases]
    versions[version] = aliases
    for name in (version, *aliases):
        files[name + "/index.html"] = f"{{version}} built from {{ref('HEAD')}}\\n"
    files["versions.json"] = json.dumps(versions, sort_keys=True, indent=1) + "\\n"
elif cmd == "set-default":
    files["index.html"] = f"redirect to {{args[0]}}\\n"
if parent:
    git("read-tree", parent, env=index)
for path, text in files.items():
    blob = git("hash-object", "-w", "--stdin", input=text).strip()
    git("update-index", "--add", "--cacheinfo", f"100644,{{blob}},{{path}}", env=index)
tree = git("write-tree", env=index).strip()
if parent and tree == git("rev-parse", parent + "^{{tree}}").strip():
    sys.exit(0)  # nothing changed: no commit (mike warns likewise)
commit = git("commit-tree", tree, *(["-p", parent] if parent else []), "-m", f"{{cmd}} {{args}}")
git("update-ref", "refs/heads/gh-pages", commit.strip())
"""


def _sh(*args: str, cwd: Path | None = None, env: dict | None = None) -> str:
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout.strip()


class _Pages:
    """A scratch "GitHub" repository (bare, reached over file://) with a main branch, and the
    workflow's two deploy steps run against it as GitHub runs them (bash -eo pipefail)."""

    def __init__(self, root: Path):
        self.root = root
        self.remote = root / "remote.git"
        self.url = self.remote.as_uri()
        self.env = dict(
            os.environ,
            GIT_AUTHOR_NAME="T",
            GIT_AUTHOR_EMAIL="t@x.invalid",
            GIT_COMMITTER_NAME="T",
            GIT_COMMITTER_EMAIL="t@x.invalid",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
        )
        _sh("git", "init", "-q", "--bare", "-b", "main", str(self.remote), env=self.env)
        self.runs = 0
        self.built_from: dict[Path, str] = {}
        self.main = self.commit_to_main()

    def commit_to_main(self) -> str:
        work = self.root / "main-work"
        if not work.exists():
            _sh("git", "clone", "-q", self.url, str(work), env=self.env)
        _sh("git", "commit", "-q", "--allow-empty", "-m", "source", cwd=work, env=self.env)
        _sh("git", "push", "-q", "origin", "HEAD:refs/heads/main", cwd=work, env=self.env)
        self.main = _sh("git", "rev-parse", "HEAD", cwd=work)
        return self.main

    def gh_pages(self) -> str:
        return _sh("git", f"--git-dir={self.remote}", "rev-parse", "-q", "--verify", "gh-pages")

    def show(self, path: str) -> str:
        return _sh("git", f"--git-dir={self.remote}", "show", f"gh-pages:{path}")

    def build(self, ref: str) -> Path:
        """pages-build's deploy step in a fresh clone at main; returns the artifact folder."""
        self.runs += 1
        checkout = self.root / f"checkout-{self.runs}"
        _sh("git", "clone", "-q", self.url, str(checkout), env=self.env)
        fake = checkout / ".venv" / "bin" / "mike"
        fake.parent.mkdir(parents=True)
        fake.write_text(FAKE_MIKE.format(python=sys.executable))
        fake.chmod(0o755)
        ctx = _push(ref)
        version = ctx["ref_name"].removeprefix("v") if ctx["ref_type"] == "tag" else "dev"
        out = self.root / f"artifact-{self.runs}"
        step = _step(_ci()["jobs"]["pages-build"], "Commit this version")
        env = dict(self.env, REF_TYPE=ctx["ref_type"], MIKE_DOCS_VERSION=version, OUT=str(out))
        self._bash(step["run"], checkout, env)
        self.built_from[out] = self.main
        return out

    def publish(self, ref: str, artifact: Path, check: bool = True):
        """pages-publish's push step, with the scratch remote in place of github.com."""
        self.runs += 1
        ctx = _push(ref)
        step = _step(_ci()["jobs"]["pages-publish"], "Push gh-pages")
        assert step["env"]["PAGES_URL"].startswith("https://github.com/")
        env = dict(
            self.env,
            TOKEN="not-a-real-token",
            PAGES_URL=self.url,
            BUNDLE=str(artifact),
            REPO_DIR=str(self.root / f"publish-{self.runs}"),
            REF_TYPE=ctx["ref_type"],
            SOURCE_SHA=self.built_from[artifact],
        )
        return self._bash(step["run"], self.root, env, check=check)

    def _bash(self, script: str, cwd: Path, env: dict, check: bool = True):
        path = self.root / f"step-{self.runs}.sh"
        path.write_text(script)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc


@pytest.fixture
def pages(tmp_path):
    if shutil.which("git") is None or shutil.which("bash") is None:
        pytest.fail("git and bash are needed to run the workflow's deploy scripts")
    return _Pages(tmp_path)


def test_workflow_first_deploy_creates_gh_pages(pages):
    pages.publish("refs/heads/main", pages.build("refs/heads/main"))
    assert pages.show("dev/index.html").startswith("dev built from " + pages.main)
    assert pages.show("index.html") == "redirect to dev"


def test_workflow_deploy_is_replayed_on_top_of_a_version_published_meanwhile(pages):
    pages.publish("refs/heads/main", pages.build("refs/heads/main"))
    first = pages.gh_pages()
    pages.commit_to_main()
    dev = pages.build("refs/heads/main")  # built on `first` ...
    pages.publish("refs/tags/v1.0.0", pages.build("refs/tags/v1.0.0"))  # ... then 1.0.0 lands
    released = pages.gh_pages()
    proc = pages.publish("refs/heads/main", dev)
    assert "replaying this deploy on top" in proc.stdout, proc.stdout + proc.stderr
    head = pages.gh_pages()
    assert head != released
    ancestry = ["git", f"--git-dir={pages.remote}", "merge-base", "--is-ancestor"]
    _sh(*ancestry, released, head)  # fast-forward: nothing published was lost
    _sh(*ancestry, first, head)
    assert pages.show("1.0.0/index.html").startswith("1.0.0 built from")
    assert pages.show("latest/index.html").startswith("1.0.0 built from")
    assert pages.show("index.html") == "redirect to latest"
    assert json.loads(pages.show("versions.json")) == {"1.0.0": ["latest"], "dev": []}


def test_workflow_conflicting_deploy_fails_and_never_forces(pages):
    pages.publish("refs/heads/main", pages.build("refs/heads/main"))
    older = pages.build("refs/tags/v1.0.0")
    pages.publish("refs/tags/v1.1.0", pages.build("refs/tags/v1.1.0"))  # both move `latest`
    head = pages.gh_pages()
    proc = pages.publish("refs/tags/v1.0.0", older, check=False)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "conflicts with what was published meanwhile" in proc.stdout
    assert pages.gh_pages() == head, "gh-pages is untouched"
    assert pages.show("latest/index.html").startswith("1.1.0 built from")


def test_workflow_dev_build_that_main_has_moved_past_is_not_published(pages):
    pages.publish("refs/heads/main", pages.build("refs/heads/main"))
    before = pages.gh_pages()
    pages.commit_to_main()
    stale = pages.build("refs/heads/main")
    pages.commit_to_main()
    proc = pages.publish("refs/heads/main", stale)
    assert "its own run publishes dev" in proc.stdout
    assert pages.gh_pages() == before


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
            r'<div class="arithmatex" id="eq-[a-z0-9-]+"[^>]*>(.*?)</div>', page_html, re.S
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
            number = re.search(r'rope-figure__number"[^>]*>Figure (\d+\.\d+)\.<', body)
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


@background("deployed", after=("site_build",))
def _deploy_with_mike(site_build):
    """The project's files in a scratch git repository, deployed with mike exactly as the
    workflow deploys a release: 0.1.0, aliased ``latest``, the default version.

    This is the run's one build besides the session's. A second, older version is added to the
    published tree the way mike adds one (a folder and an entry in ``versions.json``, here a
    copy of 0.1.0 under the name 0.0.9), so that the version selector and the banner of a
    version that is not the default can be checked without building the site a third time.
    """
    scratch = Path(tempfile.mkdtemp(prefix="rope-deploy-"))
    CLEANUP.append(lambda: shutil.rmtree(scratch, ignore_errors=True))
    repo = scratch / "repo"
    repo.mkdir()
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT)
    assert listed.returncode == 0, listed.stderr
    for rel in filter(None, listed.stdout.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / rel)
    for shared in ("node_modules", ".cache"):  # KaTeX from npm; the figure and notebook caches
        (ROOT / shared).mkdir(exist_ok=True)
        (repo / shared).symlink_to(ROOT / shared)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "snapshot")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    env.update(GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@x.invalid")
    env.update(GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@x.invalid")
    mike = _tool("mike")
    for args in (["deploy", "--update-aliases", "0.1.0", "latest"], ["set-default", "latest"]):
        proc = _run([*YIELDING, mike, *args], cwd=repo, env=env)
        assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stderr[-4000:]}"
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


@pytest.fixture(scope="module")
def deployed(site_dir):
    """The scratch repository deployed with mike, and its published tree (built in the
    background once the session's site is built: its figure and notebook caches are warm)."""
    return job_result("deployed")


def test_mike_deploys_the_version_and_its_alias(deployed):
    repo, _ = deployed
    tree = _git(repo, "ls-tree", "--name-only", "gh-pages").split()
    assert {"0.1.0", "latest", "versions.json", "index.html"} <= set(tree)
    versions = json.loads(_git(repo, "show", "gh-pages:versions.json"))
    assert versions == [{"version": "0.1.0", "title": "0.1.0", "aliases": ["latest"]}]
    listed = _git(repo, "ls-tree", "-r", "--name-only", "gh-pages", "0.1.0")
    assert "0.1.0/equations/rope/index.html" in listed.split()
    mode, kind, _ = _git(repo, "ls-tree", "gh-pages", "latest").split(maxsplit=2)
    assert (mode, kind) == ("120000", "blob"), "latest is mike's symlink to the version"
    assert _git(repo, "show", "gh-pages:latest") == "0.1.0"
    redirect = _git(repo, "show", "gh-pages:index.html")
    assert "latest/" in redirect


def test_each_deployed_version_opens_and_cites_itself(deployed, browser):
    _, served = deployed
    base = "https://rope-explained.github.io/rope-explained/"
    with serve_in_child(served) as url:
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
