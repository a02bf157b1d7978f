"""Admin forms: the editors' view of the content model.

The model stays the single source of rules (constraints with codes, `clean()`); these forms
only adapt input: synonyms as one per line, an optional slug filled from the name on the
server (so uniqueness is checked before saving, not discovered as an IntegrityError), an
untouched publication date kept to the fraction of a second, and an empty publication date
on a published entry meaning "now", which the "published has a date" constraint would
otherwise reject during validation.
"""

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from .models import (
    INVALID_SLUG,
    SELF_RELATED,
    Article,
    Category,
    Series,
    Status,
    Term,
    clean_synonyms,
    plain_texts,
)
from .polish import fold, polish_slugify
from .stemming import stem, words


class SynonymsField(forms.Field):
    """A JSON list of strings edited as a textarea, one synonym per line."""

    widget = forms.Textarea(attrs={"rows": 4})
    default_error_messages = {"invalid_synonyms": "Synonimy muszą być listą napisów."}

    def prepare_value(self, value):
        if isinstance(value, list):
            return "\n".join(str(item) for item in value)
        return value or ""

    def to_python(self, value):
        if value in self.empty_values:
            return []
        try:
            synonyms = clean_synonyms(value)
        except ValidationError as exc:
            raise ValidationError(
                self.error_messages["invalid_synonyms"], code="invalid_synonyms"
            ) from exc
        # Checked here, not only by the model: the form's warnings query with these phrases.
        return plain_texts(synonyms)

    def has_changed(self, initial, data):
        try:
            return clean_synonyms(initial or []) != self.to_python(data)
        except ValidationError:
            return True


class EntryAdminForm(forms.ModelForm):
    """Shared input adaptation for content with a slug (and, if publishable, a status)."""

    slug_source = "name"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "slug" in self.fields:
            self.fields["slug"].required = False
            # Django's own message allows underscores and any letters; ours says what is.
            self.fields["slug"].error_messages = {
                **self.fields["slug"].error_messages,
                "invalid": INVALID_SLUG,
            }
            self.fields[
                "slug"
            ].help_text = "Puste = utworzony z nazwy (polskie litery bez ogonków)."

    def clean_slug(self):
        slug = self.cleaned_data.get("slug", "")
        if slug and slug != polish_slugify(slug):
            raise ValidationError(INVALID_SLUG, code="invalid_slug")
        return slug

    def clean(self):
        cleaned = super().clean()
        if "slug" in self.fields and not cleaned.get("slug") and "slug" not in self.errors:
            source = cleaned.get(self.slug_source) or ""
            cleaned["slug"] = polish_slugify(source)
            if source and not cleaned["slug"]:
                self.add_error(
                    "slug",
                    ValidationError(
                        "Z tej nazwy nie da się utworzyć sluga — wpisz go ręcznie.",
                        code="slug_required",
                    ),
                )
        if (
            "published_at" in self.fields
            and self.instance.pk
            and "published_at" not in self.changed_data
            and "published_at" not in self.errors
        ):
            # The date widget shows whole seconds: an untouched date keeps its fractions,
            # or every save would record a change of the publication date.
            cleaned["published_at"] = self.instance.published_at
        if (
            "published_at" in self.fields
            and cleaned.get("status") == Status.PUBLISHED
            and not cleaned.get("published_at")
            and "published_at" not in self.errors
        ):
            cleaned["published_at"] = timezone.now()
        return cleaned


# A one-word name or synonym found in at least this share of the published texts (and in
# at least COMMON_MIN_TEXTS of them) is an everyday word: linking it would send readers of
# every text to this one term.
COMMON_SHARE = 1 / 3
COMMON_MIN_TEXTS = 5
UNLINKED_NOT_SYNONYM = "Synonim bez linkowania musi być też na liście synonimów: {forms}."


def texts_using(word: str, *, exclude_term=None) -> tuple[int, int]:
    """(published texts whose definition, lead or body has `word`'s stem, published texts)
    over terms and articles, the term `exclude_term` left out (4 queries)."""
    token = f" {stem(word)} "
    terms = Term.objects.published()
    if exclude_term is not None:
        terms = terms.exclude(pk=exclude_term)
    articles = Article.objects.published()
    found = terms.filter(Q(stems_definition__contains=token) | Q(stems_body__contains=token))
    found_articles = articles.filter(Q(stems_lead__contains=token) | Q(stems_body__contains=token))
    return found.count() + found_articles.count(), terms.count() + articles.count()


def is_common_word(form: str, *, exclude_term=None) -> bool:
    """Whether `form` is one everyday word: a single word in at least a third of the
    published texts (and in at least COMMON_MIN_TEXTS). Phrases are never common."""
    parts = words(form)
    if len(parts) != 1:
        return False
    using, total = texts_using(parts[0], exclude_term=exclude_term)
    return using >= COMMON_MIN_TEXTS and using >= total * COMMON_SHARE


class TermAdminForm(EntryAdminForm):
    """The term form. Besides errors it collects `warnings`, things an editor may want on
    purpose: a new linked name or synonym that is an everyday word (every text would link
    it), and a name or synonym that already names another term."""

    synonyms = SynonymsField(
        label="Synonimy",
        required=False,
        help_text="Jeden w wierszu: skróty, rozwinięcia, nazwy angielskie, formy odmienione.",
    )
    unlinked_synonyms = SynonymsField(
        label="Synonimy bez linkowania",
        required=False,
        help_text="Jeden w wierszu, spośród synonimów: wyszukiwarka je zna, ale w innych "
        "tekstach nie stają się odnośnikiem. Dla zwykłych słów (np. „serwer”, „klient”).",
    )
    asked_as = SynonymsField(
        label="Pytano też jako",
        required=False,
        help_text="Jedno zapytanie w wierszu: jak pytali czytelnicy i agenci, którzy szukali "
        "tego pojęcia. Wyszukiwarka traktuje je jak synonimy; nigdy nie stają się "
        "odnośnikiem i nie są nigdzie pokazywane.",
    )

    class Meta:
        model = Term
        fields = (
            "name",
            "slug",
            "short_definition",
            "body",
            "synonyms",
            "unlinked_synonyms",
            "english_name",
            "english_definition",
            "asked_as",
            "categories",
            "related",
            "status",
            "published_at",
        )

    def clean_unlinked_synonyms(self):
        """The unlinked synonyms as written in the synonyms list (case and spacing)."""
        unlinked = self.cleaned_data.get("unlinked_synonyms") or []
        synonyms = {fold(s): s for s in self.cleaned_data.get("synonyms") or []}
        missing = [u for u in unlinked if fold(u) not in synonyms]
        if missing:
            forms_ = ", ".join(f"„{m}”" for m in missing)
            raise ValidationError(
                UNLINKED_NOT_SYNONYM.format(forms=forms_), code="unlinked_not_synonym"
            )
        return [synonyms[fold(u)] for u in unlinked]

    def clean(self):
        cleaned = super().clean()
        self.warnings = self._warnings(cleaned) if not self.errors else []
        return cleaned

    def _warnings(self, cleaned) -> list[str]:
        """What the editor should confirm (see the class docstring), in Polish."""
        name = cleaned.get("name") or ""
        synonyms = cleaned.get("synonyms") or []
        unlinked = {fold(u) for u in cleaned.get("unlinked_synonyms") or []}
        before = {fold(f) for f in [self.instance.name, *self.instance.synonyms] if f}
        new = [f for f in [name, *synonyms] if f and fold(f) not in before]
        out = []
        own = self.instance.pk
        for form in new:
            other = (
                Term.objects.exclude(pk=own)
                .filter(search_names__contains=f"| {fold(form)} |")
                .values_list("name", flat=True)
                .first()
            )
            if other is not None:
                out.append(
                    f"„{form}” to już nazwa albo synonim pojęcia „{other}”: "
                    "czytelnik i wyszukiwarka nie odróżnią tych pojęć."
                )
        linked = cleaned.get("linkable", self.instance.linkable)
        for form in new:
            if linked and fold(form) not in unlinked and is_common_word(form, exclude_term=own):
                out.append(
                    f"„{form}” to zwykłe słowo (występuje w co najmniej co trzecim "
                    "opublikowanym tekście): każde jego wystąpienie prowadziłoby do tego "
                    "pojęcia. Jeśli to synonim, wpisz go też w „Synonimy bez linkowania”."
                )
        return out

    def clean_related(self):
        related = self.cleaned_data.get("related")
        if (
            related is not None
            and self.instance.pk
            and related.filter(pk=self.instance.pk).exists()
        ):
            raise forms.ValidationError(SELF_RELATED, code="self_related")
        return related


class ArticleAdminForm(EntryAdminForm):
    slug_source = "title"

    class Meta:
        model = Article
        fields = (
            "title",
            "slug",
            "lead",
            "body",
            "terms",
            "series",
            "series_order",
            "status",
            "published_at",
            "author",
        )


class CategoryAdminForm(EntryAdminForm):
    class Meta:
        model = Category
        fields = ("name", "slug", "description")


class SeriesAdminForm(EntryAdminForm):
    class Meta:
        model = Series
        fields = ("name", "slug", "description")
