from django.urls import path

from . import views

urlpatterns = [
    path("auth/register", views.RegisterView.as_view(), name="register"),
    path("auth/login", views.LoginView.as_view(), name="login"),
    path("auth/logout", views.LogoutView.as_view(), name="logout"),
    path("me", views.MeView.as_view(), name="me"),
    path("tokens", views.TokenListView.as_view(), name="token-list"),
    path("tokens/<int:token_id>", views.TokenDetailView.as_view(), name="token-detail"),
]
