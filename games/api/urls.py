from django.urls import path

from . import live, views

urlpatterns = [
    path("rulesets", views.RulesetListView.as_view(), name="ruleset-list"),
    path("rulesets/<slug:slug>", views.RulesetDetailView.as_view(), name="ruleset-detail"),
    path("games", views.GameListView.as_view(), name="game-list"),
    path("games/<int:game_id>", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/join", views.GameJoinView.as_view(), name="game-join"),
    path("games/<int:game_id>/leave", views.GameLeaveView.as_view(), name="game-leave"),
    path("games/<int:game_id>/bots", views.GameBotsView.as_view(), name="game-bots"),
    path("games/<int:game_id>/start", views.GameStartView.as_view(), name="game-start"),
    path("games/<int:game_id>/resign", views.GameResignView.as_view(), name="game-resign"),
    path(
        "games/<int:game_id>/legal-actions",
        views.LegalActionsView.as_view(),
        name="game-legal-actions",
    ),
    path("games/<int:game_id>/actions", views.ActionView.as_view(), name="game-actions"),
    path("games/<int:game_id>/events", views.EventListView.as_view(), name="game-events"),
    path("games/<int:game_id>/stream", live.GameStreamView.as_view(), name="game-stream"),
    path("stream", live.UserStreamView.as_view(), name="user-stream"),
    path("games/<int:game_id>/state", views.StateView.as_view(), name="game-state"),
    path("games/<int:game_id>/verify", views.VerifyView.as_view(), name="game-verify"),
    path("games/<int:game_id>/record", views.RecordView.as_view(), name="game-record"),
    path(
        "users/<str:username>/games",
        views.UserGamesExportView.as_view(),
        name="user-games-export",
    ),
    path("records", views.RecordImportView.as_view(), name="record-import"),
    path("records/<int:record_id>", views.ImportedRecordView.as_view(), name="record-detail"),
    path(
        "records/<int:record_id>/verify",
        views.ImportedRecordVerifyView.as_view(),
        name="record-verify",
    ),
    path("verifier.py", views.VerifierScriptView.as_view(), name="verifier-script"),
]
