"""Shared reads: every page, REST route and MCP method that shows the same thing calls the same
function here, and every function starts from `published()` unless a caller explicitly asks
staff-only drafts (`include_drafts=True`, used by "view on site" for editors).

Split by what they read: `details` (one entry as its page and an agent read it), `lists` (the
A–Z index and its pages, categories, series, latest entries, whole texts), `entries` (REST
collections and details: entries with their links), `links` (the `Link` rows all of them
attach) and `state` (the content state every cache and ETag is keyed by).

Query counts are constant by construction: a detail read is one query, the row with
everything attached to it (categories, related terms, articles, series siblings) as JSON
arrays in correlated subqueries, sorted in Python. Callers (and tests) rely on these counts.
"""

from . import state
from .details import (
    _ARTICLE_DETAIL,
    _ARTICLE_TEXT,
    _TERM_DETAIL,
    _TERM_TEXT,
    PAGE_ONLY_COLUMNS,
    ArticleDetail,
    TermDetail,
    _article_by_slug,
    _article_links,
    _term_by_slug,
    _term_links,
    article_detail,
    term_detail,
)
from .entries import (
    _ENTRY_ROWS,
    ID_COLUMNS,
    EntryIds,
    EntryLinks,
    article_links,
    entry_link_ids,
    entry_link_parts,
    entry_with_links,
    link_columns,
    links_from_row,
    term_links,
    with_entry_links,
)
from .links import ARTICLE_SEARCH_COLUMNS, LINK_COLUMNS, TERM_SEARCH_COLUMNS, Link
from .lists import (
    _CATEGORIES,
    _TERM_PAGES,
    TERM_CARD_FIELDS,
    TERM_PAGE_FIELDS,
    article_list,
    article_texts,
    categories,
    categories_with_terms,
    category_detail,
    index_letters,
    latest_articles,
    recently_updated_terms,
    series_detail,
    series_with_articles,
    term_index,
    term_page,
    term_texts,
)
from .state import (
    STATE_COLUMNS,
    ConstantSQL,
    content_state,
    last_content_state,
    state_from_row,
    with_content_state,
)

__all__ = [
    "ARTICLE_SEARCH_COLUMNS",
    "ID_COLUMNS",
    "LINK_COLUMNS",
    "PAGE_ONLY_COLUMNS",
    "STATE_COLUMNS",
    "TERM_CARD_FIELDS",
    "TERM_PAGE_FIELDS",
    "TERM_SEARCH_COLUMNS",
    "_ARTICLE_DETAIL",
    "_ARTICLE_TEXT",
    "_CATEGORIES",
    "_ENTRY_ROWS",
    "_TERM_DETAIL",
    "_TERM_PAGES",
    "_TERM_TEXT",
    "ArticleDetail",
    "ConstantSQL",
    "EntryIds",
    "EntryLinks",
    "Link",
    "TermDetail",
    "_article_by_slug",
    "_article_links",
    "_term_by_slug",
    "_term_links",
    "article_detail",
    "article_links",
    "article_list",
    "article_texts",
    "categories",
    "categories_with_terms",
    "category_detail",
    "content_state",
    "entry_link_ids",
    "entry_link_parts",
    "entry_with_links",
    "index_letters",
    "last_content_state",
    "latest_articles",
    "link_columns",
    "links_from_row",
    "recently_updated_terms",
    "series_detail",
    "series_with_articles",
    "state",
    "state_from_row",
    "term_detail",
    "term_index",
    "term_links",
    "term_page",
    "term_texts",
    "with_content_state",
    "with_entry_links",
]
