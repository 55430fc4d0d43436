"""GTFS journeys from Python equal `urbanflow journey`'s (arrival and legs), on the bundled mini feed
and on the New York subway; one-to-all arrivals agree with single journeys; errors are typed."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import urbanflow
from conftest import REPO, command, shared_data

MINI = REPO / "crates" / "algos-transit" / "tests" / "data" / "mini_gtfs"


def command_journey(feed, src, dst, depart, profile="walk+transit", date=None):
    cmd = [*command("journey"), "--gtfs", str(feed), "--from", f"{src[0]},{src[1]}", "--to",
           f"{dst[0]},{dst[1]}", "--depart", depart, "--profile", profile, "--json"]
    if date:
        cmd += ["--date", date]
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def same_as_command(feed, src, dst, depart, date=None):
    want = command_journey(feed, src, dst, depart, date=date)
    t = urbanflow.Transit.from_gtfs(feed, date=date, places=[src, dst])
    j = t.journey(0, 1, depart, as_frame=False)
    if want.get("arrival_s") is None:
        assert j is None
        return t, None
    assert j.depart == want["depart_s"]
    assert j.arrival == want["arrival_s"]
    legs = j.legs
    assert list(legs["mode"]) == [leg["mode"] for leg in want["legs"]]
    assert list(legs["from"]) == [leg["from"] for leg in want["legs"]]
    assert list(legs["to"]) == [leg["to"] for leg in want["legs"]]
    assert legs["departure"].tolist() == [leg["departure_s"] for leg in want["legs"]]
    assert legs["arrival"].tolist() == [leg["arrival_s"] for leg in want["legs"]]
    assert list(legs["route"]) == [leg["route"] for leg in want["legs"]]
    assert legs["departure"].dtype == np.uint32
    return t, j


def test_mini_feed_journey_equals_the_command():
    # From station One to station Three on a Tuesday morning: the feed's red line.
    t, j = same_as_command(MINI, (48.8500, 2.3500), (48.8700, 2.3500), "07:55", date="2025-04-08")
    assert j is not None and j.duration > 0
    assert "metro" in list(j.legs["mode"])
    assert t.date == "2025-04-08"
    assert t.stats()["stations"] == len(t.stations(as_frame=False)["id"])


def test_new_york_subway_journey_equals_the_command():
    feed = shared_data("transit/nyc_subway_gtfs.zip")
    t, j = same_as_command(feed, (40.8898, -73.8986), (40.7020, -74.0130), "08:00")
    assert j is not None
    assert 30 * 60 < j.duration < 3 * 3600
    # One search to every station agrees with the journey to the station nearest the destination.
    dest = t.vertex((40.7020, -74.0130))
    station = int(np.flatnonzero(t.stations(as_frame=False)["vertex"] == dest)[0])
    arrivals = t.arrivals(0, "08:00")
    assert arrivals.dtype == np.float64 and arrivals.shape == (t.stats()["stations"],)
    direct = t.journey(0, t.stations(as_frame=False)["id"][station], "08:00")
    assert arrivals[station] == direct.arrival
    assert np.isfinite(arrivals).mean() > 0.9


def test_endpoints_by_station_id_and_coordinates():
    t = urbanflow.Transit.from_gtfs(MINI, date="2025-04-08")
    stations = t.stations(as_frame=False)
    one = stations["id"][list(stations["name"]).index("One")]
    assert t.vertex(one) == t.vertex((48.8500, 2.3500))
    j = t.journey(one, (48.8600, 2.3500), "07:55")
    assert j is not None and j.arrival > j.depart == 7 * 3600 + 55 * 60
    # Seconds after midnight and HH:MM:SS name the same time.
    again = t.journey(one, (48.8600, 2.3500), 7 * 3600 + 55 * 60)
    assert (again.depart, again.arrival) == (j.depart, j.arrival)
    assert list(again.legs["mode"]) == list(j.legs["mode"])


def test_errors_are_typed(tmp_path):
    with pytest.raises(FileNotFoundError):
        urbanflow.Transit.from_gtfs(tmp_path / "absent.zip")
    with pytest.raises(urbanflow.errors.InvalidInputError):
        urbanflow.Transit.from_gtfs(MINI, date="2025-13-40")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="no service"):
        urbanflow.Transit.from_gtfs(MINI, date="2030-01-01")
    t = urbanflow.Transit.from_gtfs(MINI, date="2025-04-08")
    with pytest.raises(KeyError):
        t.vertex("no-such-stop")
    with pytest.raises(urbanflow.errors.VertexError):
        t.vertex(0)  # no places were given
    with pytest.raises(urbanflow.errors.InvalidInputError, match="snap_limit_m"):
        t.vertex((0.0, 0.0))
    with pytest.raises(urbanflow.errors.InvalidInputError, match="HH:MM"):
        t.journey((48.85, 2.35), (48.87, 2.35), "8h")
    with pytest.raises(urbanflow.errors.InvalidInputError, match="profile"):
        t.journey((48.85, 2.35), (48.87, 2.35), "08:00", profile="teleport")
    bad = tmp_path / "bad_feed"
    bad.mkdir()
    (bad / "stops.txt").write_text("stop_id,stop_name\nS1\n")
    with pytest.raises(urbanflow.errors.FormatError) as info:
        urbanflow.Transit.from_gtfs(bad, date="2025-04-08")
    assert info.value.path == str(bad)
