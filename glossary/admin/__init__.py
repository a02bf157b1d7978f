"""The editors' admin ("Słownik — redakcja").

Declarative on purpose: what each list shows, filters and searches is in class attributes;
input adaptation lives in `glossary/forms.py`, writes in `glossary/services.py` (every save,
delete and bulk action goes through a named service, which makes it a revision and keeps
auto-links right). Beyond Django's admin: a live Markdown preview beside the body (the site's
own renderer, sanitizer and auto-linker, `preview_view`), the revisions of an entry with a
readable diff and restore (`history_view`), and messages in Polish with the right gender
and plural forms (gettext catalog in glossary/locale/).
Editors belong to the "Editors" group (migration 0002). They hold `auth.view_user` only so
the article author autocomplete works, so the user admin below keeps the account pages
themselves for people who may change accounts.
"""

from django.apps import apps as django_apps
from django.contrib import admin

admin.site.site_header = "Słownik — redakcja"
admin.site.site_title = "Słownik — redakcja"
admin.site.index_title = "Treści słownika"
# django-axes names its admin section after itself; editors read Polish (its models' names come
# from glossary/locale).
django_apps.get_app_config("axes").verbose_name = "Logowanie: próby i blokady"

from . import entries, taxonomies, users  # noqa: E402, F401  (each registers its admins)
