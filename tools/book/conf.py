"""Sphinx settings for the course's book (built by ``tools/build_book.py``, which stages the sources)."""

import posixpath
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

project = "sse-course"
html_title = "sse-course"
extensions = ["myst_nb"]
root_doc = "index"
exclude_patterns: list[str] = []

# Notebooks are shown with the outputs they store: nothing runs while the book builds.
nb_execution_mode = "off"
# One printed output is one box, however many writes made it.
nb_merge_streams = True
# The explorers are drawn from their stored state by build_book.py; no widget manager from a CDN.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
# GitHub's heading anchors, which the lessons' links are written for (README.md#course-map).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
# A heading level skipped in a notebook is a style point for its author, not a broken page.
suppress_warnings = ["myst.header"]

html_theme = "sphinx_book_theme"
html_favicon = "favicon.svg"
# Phone navigation, search snippets (course.js) and explorers in dark mode (course.css).
html_static_path = ["static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]
html_copy_source = False
html_use_index = False
html_show_sourcelink = False
html_last_updated_fmt = None
# Without it the theme's first page logs "invalid theme mode" to the console.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
}


# --- links to the repository that are not pages -----------------------------------------

#: Folders whose pages the book holds: a link to the folder itself goes to the course map.
PARTS = ("notebooks", "exercises", "solutions", "docs")
#: The README is the maintainers' page and not in the book: a link to one of its sections
#: goes to the learners' page that says the same (page, anchor); any other to the About page.
README = "README.md"
README_SECTIONS = {
    "course-map": ("index", "course-map"),
    "how-to-work-learners": ("docs/setup", "how-to-work"),
    "set-up-two-commands": ("docs/setup", "on-your-machine"),
    "the-package": ("docs/about", "what-you-get"),
}


class RepositoryLinks(SphinxPostTransform):
    """A lesson's link to a part's folder goes to the course map; one to a file of the
    repository that is no page (source code, the benchmarks) becomes text naming it.
    Any other unresolved link is left to MyST, which warns (and the build fails)."""

    default_priority = 8  # before MyST resolves its references (9)

    def run(self, **kwargs: object) -> None:
        root = Path(self.config.repository_root)
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node["reftype"] != "myst" or node["refdomain"] == "doc":
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(node["refdoc"]), node["reftarget"]))
            path, _, fragment = target.partition("#")
            if target in PARTS or path == README:
                page, anchor = (
                    ("index", "course-map") if target in PARTS else README_SECTIONS.get(fragment, ("docs/about", ""))
                )
                uri = self.app.builder.get_relative_uri(node["refdoc"], page) + (f"#{anchor}" if anchor else "")
                node.replace_self(nodes.reference("", "", *node.children, refuri=uri, internal=True))
            elif target and (root / target).is_file():
                text = node.astext()
                named = [] if target in text else [nodes.Text(" ("), nodes.literal(target, target), nodes.Text(")")]
                node.replace_self(nodes.inline("", "", *node.children, *named, classes=["repository-file"]))


def setup(app: Sphinx) -> None:
    app.add_config_value("repository_root", "", "env")
    app.add_post_transform(RepositoryLinks)
