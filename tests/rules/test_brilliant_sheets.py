"""The four designed Brilliant sheets respect the issue's constraints."""

from __future__ import annotations

import json
import statistics

import pytest

from games.rules import brilliant
from games.rules.brilliant.sheets import COLOURS, LEVELS, Sheet, sheet

RESTRICTIVE = ("blue", "gray", "red", "yellow", "purple", "orange")


def _connected(fields: set[tuple[int, int]], sheet_: Sheet) -> bool:
    start = next(iter(fields))
    seen, todo = {start}, [start]
    while todo:
        for other in sheet_.neighbours[todo.pop()]:
            if other in fields and other not in seen:
                seen.add(other)
                todo.append(other)
    return seen == fields


def test_there_are_four_levels() -> None:
    assert LEVELS == (1, 2, 3, 4)


@pytest.mark.parametrize("level", LEVELS)
def test_sheet_has_60_to_80_fields(level: int) -> None:
    assert 60 <= len(sheet(level).area_of) <= 80


@pytest.mark.parametrize("level", LEVELS)
def test_sheet_has_12_to_18_areas(level: int) -> None:
    assert 12 <= len(sheet(level).areas) <= 18


@pytest.mark.parametrize("level", LEVELS)
def test_every_colour_is_present(level: int) -> None:
    assert {area.colour for area in sheet(level).areas} == set(COLOURS)


@pytest.mark.parametrize("level", LEVELS)
def test_areas_have_2_to_8_connected_fields(level: int) -> None:
    sheet_ = sheet(level)
    for area in sheet_.areas:
        assert 2 <= len(area.fields) <= 8, area.letter
        assert _connected(set(area.fields), sheet_), area.letter


@pytest.mark.parametrize("level", LEVELS)
def test_all_different_areas_can_be_completed(level: int) -> None:
    # Red and yellow need different numbers in every field: at most six fields.
    for area in sheet(level).areas:
        if area.colour in ("red", "yellow"):
            assert len(area.fields) <= 6, area.letter


@pytest.mark.parametrize("level", LEVELS)
def test_whole_sheet_is_connected(level: int) -> None:
    # Otherwise some fields could never get a neighbour and the sheet never fills.
    sheet_ = sheet(level)
    assert _connected(set(sheet_.area_of), sheet_)


@pytest.mark.parametrize("level", LEVELS)
def test_point_values_are_high_over_middle_over_low(level: int) -> None:
    for area in sheet(level).areas:
        high, middle, low = area.points
        assert high > middle > low > 0, area.letter


@pytest.mark.parametrize("level", LEVELS)
def test_six_star_fields_in_six_different_areas(level: int) -> None:
    sheet_ = sheet(level)
    assert len(sheet_.stars) == 6
    assert all(sheet_.is_field(row, col) for row, col in sheet_.stars)
    assert len({sheet_.area_of[star] for star in sheet_.stars}) == 6


def test_level_1_has_a_large_all_same_area_along_the_edge() -> None:
    sheet_ = sheet(1)
    edge_areas = [
        area
        for area in sheet_.areas
        if area.colour in ("blue", "gray")
        and len(area.fields) >= 6
        and sum(
            row in (0, sheet_.rows - 1) or col in (0, sheet_.cols - 1) for row, col in area.fields
        )
        > len(area.fields) / 2
    ]
    assert edge_areas


def test_harder_levels_have_larger_restrictive_areas() -> None:
    def mean_restrictive_size(level: int) -> float:
        return statistics.mean(
            len(area.fields) for area in sheet(level).areas if area.colour in RESTRICTIVE
        )

    sizes = [mean_restrictive_size(level) for level in LEVELS]
    assert sizes == sorted(sizes)
    assert sizes[0] < sizes[-1]


def test_material_describes_every_sheet_as_json() -> None:
    material = brilliant.material()
    assert json.loads(json.dumps(material)) == material
    assert sorted(material["sheets"]) == ["1", "2", "3", "4"]
    level_1 = material["sheets"]["1"]
    assert level_1["rows"] == 8 and level_1["cols"] == 9
    assert len(level_1["fields"]) == len(sheet(1).area_of)
    assert [star["value"] for star in level_1["stars"]] == [1, 2, 3, 4, 5, 6]
    assert {"id", "colour", "rule", "fields", "points"} <= set(level_1["areas"][0])
