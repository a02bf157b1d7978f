"""Application passwords in the admin: every staff user manages their own (WordPress's
"Application Passwords" section of the profile screen).

Creating one asks only for a name; the password is shown once, on the page that answers the
save (never through the messages framework, whose cookie storage would put it in a cookie),
and only its keyed hash is stored. Deleting one revokes it at once. Superusers see and may
revoke everyone's passwords, but create passwords only for themselves.
"""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse

from .models import ApplicationPassword, chunked


class ApplicationPasswordForm(forms.ModelForm):
    class Meta:
        model = ApplicationPassword
        fields = ("name",)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user if user is not None else self.instance.user

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise ValidationError("Podaj nazwę.", code="required")
        taken = ApplicationPassword.objects.filter(user=self.user, name__iexact=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise ValidationError("Masz już hasło aplikacji o tej nazwie.", code="duplicate_name")
        return name


@admin.register(ApplicationPassword)
class ApplicationPasswordAdmin(admin.ModelAdmin):
    form = ApplicationPasswordForm
    list_display = ("name", "user", "created_at", "last_used", "last_ip")
    list_select_related = ("user",)
    readonly_fields = ("created_at", "last_used", "last_ip")
    search_fields = ("name",)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.filter(user=request.user)

    def get_list_display(self, request):
        if request.user.is_superuser:
            return self.list_display
        return tuple(name for name in self.list_display if name != "user")

    def get_fields(self, request, obj=None):
        return ("name",) if obj is None else ("name", *self.readonly_fields)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        user = obj.user if obj is not None else request.user

        class BoundForm(form):
            def __init__(self, *args, **kw):
                super().__init__(*args, user=user, **kw)

        return BoundForm

    # Self-service: any staff user may hold passwords for their own account; the model
    # permissions are not needed (the Editors group does not carry them).
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self._own(request, obj)

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_change_permission(self, request, obj=None):
        return self._own(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._own(request, obj)

    @staticmethod
    def _own(request, obj) -> bool:
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        return obj is None or user.is_superuser or obj.user_id == user.pk

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        obj.user = request.user
        request._new_application_password = obj.set_new_password()
        obj.save()

    def response_add(self, request, obj, post_url_continue=None):
        password = getattr(request, "_new_application_password", None)
        if password is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "title": "Nowe hasło aplikacji",
            "opts": self.opts,
            "password": chunked(password),
            "application_password": obj,
            "username": request.user.get_username(),
        }
        response = TemplateResponse(request, "admin/api/applicationpassword/created.html", context)
        # The only copy of the password: never stored by a cache or the browser's history.
        response["Cache-Control"] = "no-store"
        return response
