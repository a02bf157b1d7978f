"""What an import did, and how it tells the caller while it runs."""

from collections.abc import Callable
from dataclasses import dataclass

_PROGRESS_EVERY = 5000

Progress = Callable[[str], None]


@dataclass
class ImportReport:
    """What an import did (or, with `dry_run`, would do)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    categories_created: int = 0
    links_added: int = 0
    links_removed: int = 0
    dry_run: bool = False

    def summary(self) -> str:
        verb = "Do zaimportowania (próba, nic nie zapisano)" if self.dry_run else "Zaimportowano"
        return (
            f"{verb}: nowe pojęcia {self.created}, zmienione {self.updated}, "
            f"bez zmian {self.unchanged}; nowe kategorie {self.categories_created}; "
            f"powiązania dodane {self.links_added}, usunięte {self.links_removed}."
        )


def _report_progress(say: Progress, done: int, total: int) -> None:
    if done % _PROGRESS_EVERY == 0 or done >= total:
        say(f"Zapisano {min(done, total)}/{total} pojęć…")


# --- articles -------------------------------------------------------------------------------
@dataclass
class ArticleImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def summary(self) -> str:
        return (
            f"Artykuły: nowe {self.created}, zmienione {self.updated}, bez zmian {self.unchanged}."
        )
