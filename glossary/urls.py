app_name = "glossary"
urlpatterns: list = []
