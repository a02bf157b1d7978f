"""One row per recorded lookup: an agent's MCP tool call or resource read, or a reader's query
in the site's search box. No IP address, no session id, no user: what was asked, what was
found, by which client (the name and version it announced), in which protocol era, how fast.
Rows are written in batches by `analytics.recorder` and deleted after
`ANALYTICS_RETENTION_DAYS` by `manage.py cleanup_analytics`.
"""

from django.db import models


class Source(models.TextChoices):
    MCP = "mcp", "agenci (MCP)"
    SITE = "site", "wyszukiwarka strony"


class Lookup(models.Model):
    at = models.DateTimeField("kiedy")
    source = models.CharField("źródło", max_length=4, choices=Source.choices)
    # "tools/call" name (search_term, get_term, …), "resources/read" or "search" (the site).
    name = models.CharField("narzędzie", max_length=128)
    query = models.CharField("zapytanie", max_length=250, blank=True)
    # The query folded (lower case, no Polish diacritics, single spaces): what reports group by.
    normalized = models.CharField("zapytanie (znormalizowane)", max_length=250, blank=True)
    results = models.PositiveIntegerField("wyników", default=0)
    # The slug of the first result, and whether it is a term or an article.
    top_result = models.CharField("pierwszy wynik", max_length=250, blank=True)
    top_kind = models.CharField("rodzaj wyniku", max_length=8, blank=True)
    found = models.BooleanField("znaleziono", default=False)
    error = models.BooleanField("błąd", default=False)
    era = models.CharField("era protokołu", max_length=8, blank=True)
    protocol_version = models.CharField("wersja protokołu", max_length=20, blank=True)
    transport = models.CharField("transport", max_length=8, blank=True)
    client_name = models.CharField("klient", max_length=100, blank=True)
    client_version = models.CharField("wersja klienta", max_length=50, blank=True)
    # Identical lookups written in one batch are one row: how many, and their mean latency.
    count = models.PositiveIntegerField("liczba", default=1)
    latency_ms = models.FloatField("czas [ms]", default=0)

    class Meta:
        verbose_name = "zapytanie"
        verbose_name_plural = "zapytania"
        ordering = ["-at", "-id"]
        indexes = [
            # The reports: misses and hits of one source over a period, per client, per day.
            models.Index(fields=["source", "found", "at"], name="analytics_source_found_at"),
            models.Index(fields=["source", "at"], name="analytics_source_at"),
            # Retention deletes by age.
            models.Index(fields=["at"], name="analytics_at"),
        ]

    def __str__(self) -> str:
        return f"{self.name} „{self.query}” ({self.results})"
