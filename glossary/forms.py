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
)
from .polish import polish_slugify


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
            return clean_synonyms(value)
        except ValidationError as exc:
            raise ValidationError(
                self.error_messages["invalid_synonyms"], code="invalid_synonyms"
            ) from exc

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


class TermAdminForm(EntryAdminForm):
    synonyms = SynonymsField(
        label="Synonimy",
        required=False,
        help_text="Jeden w wierszu: skróty, rozwinięcia, nazwy angielskie, formy odmienione.",
    )

    class Meta:
        model = Term
        fields = (
            "name",
            "slug",
            "short_definition",
            "body",
            "synonyms",
            "categories",
            "related",
            "status",
            "published_at",
        )

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
