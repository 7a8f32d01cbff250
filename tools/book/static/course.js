/* The course's book: two fixes to the themes' scripts (tools/book/conf.py loads this file). */

/* Narrow screens: sphinx-book-theme draws its own ☰ and contents buttons in the article
   header, while pydata-sphinx-theme opens the navigation only from the first
   `.primary-toggle` / `.secondary-toggle` of the page, its own header's, hidden there.
   Each other button of the kind passes its click on to that first one. */
function forwardSidebarToggles() {
  for (const kind of ["primary-toggle", "secondary-toggle"]) {
    const [first, ...others] = document.querySelectorAll(`.${kind}`);
    for (const button of others) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        first.click();
      });
    }
  }
}

/* Search: Sphinx takes a result's snippet from the page's main region, which holds the
   article header's buttons too ("System Settings Light Dark"); the snippet is taken from
   the article alone. */
const NOT_ARTICLE = ".bd-header-article, .bd-sidebar-secondary, .prev-next-area, .bd-footer-article";

function snippetsFromTheArticle() {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(NOT_ARTICLE).forEach((element) => element.remove());
    return htmlToText(page.documentElement.outerHTML, anchor);
  };
}

document.addEventListener("DOMContentLoaded", () => {
  forwardSidebarToggles();
  snippetsFromTheArticle();
});
