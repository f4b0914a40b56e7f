"""docker-compose.yml describes the whole stack, each service healthy-checked and restarted.

Where the compose plugin exists, `docker compose config` must accept the file with the
documented .env.example; everywhere, the YAML itself is checked service by service.
"""

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SERVICES = {"postgres", "redis", "migrate", "web", "worker-cpu", "worker-gpu", "beat"}
LONG_RUNNING = SERVICES - {"migrate"}
WORKERS = ("worker-cpu", "worker-gpu", "beat", "migrate")


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def _documented() -> set[str]:
    lines = (ROOT / ".env.example").read_text().splitlines()
    return {line.split("=", 1)[0] for line in lines if re.match(r"^[A-Z_]+=", line)}


def _compose_plugin() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    probe = subprocess.run([docker, "compose", "version"], capture_output=True, check=False)  # noqa: S603
    return probe.returncode == 0


def test_every_service_is_there_with_a_health_check_and_a_restart_policy() -> None:
    services = _compose()["services"]

    assert set(services) == SERVICES
    for name in LONG_RUNNING:
        assert "healthcheck" in services[name], name
        assert services[name]["restart"] == "unless-stopped", name


def test_data_lives_in_named_volumes() -> None:
    compose = _compose()

    assert set(compose["volumes"]) == {"pgdata", "redisdata"}
    assert "pgdata:/var/lib/postgresql/data" in compose["services"]["postgres"]["volumes"]
    assert "redisdata:/data" in compose["services"]["redis"]["volumes"]


def test_only_the_web_service_gets_the_secret_key() -> None:
    services = _compose()["services"]

    assert "SECRET_KEY" in services["web"]["environment"]
    for name in WORKERS:
        assert "SECRET_KEY" not in services[name]["environment"], name


def test_the_web_tier_is_gunicorn_on_the_image_without_torch() -> None:
    services = _compose()["services"]

    assert services["web"]["build"]["target"] == "web"
    assert services["web"]["command"][0] == "gunicorn"
    assert services["worker-cpu"]["build"]["target"] == "worker"
    web_lock = (ROOT / "requirements" / "web.lock").read_text().lower()
    assert "torch" not in web_lock
    assert "gunicorn==" in web_lock


def test_the_gpu_worker_reserves_an_nvidia_device_behind_its_profile() -> None:
    gpu = _compose()["services"]["worker-gpu"]

    assert gpu["profiles"] == ["gpu"]
    assert "gpu" in gpu["command"][gpu["command"].index("-Q") + 1].split(",")
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    assert "cpu" not in _compose()["services"]["worker-gpu"]["command"]


def test_every_setting_the_file_reads_is_documented_in_env_example() -> None:
    used = set(re.findall(r"\$\{([A-Z_]+)", (ROOT / "docker-compose.yml").read_text()))

    assert used <= _documented(), used - _documented()


def test_docker_compose_accepts_the_file_with_the_example_settings(tmp_path: Path) -> None:
    if not _compose_plugin():
        pytest.skip("no `docker compose` plugin here; the YAML-level tests above cover it")
    env_file = tmp_path / ".env"
    example = (ROOT / ".env.example").read_text()
    env_file.write_text(
        example.replace("SECRET_KEY=\n", "SECRET_KEY=k\n").replace(
            "POSTGRES_PASSWORD=\n", "POSTGRES_PASSWORD=p\n"
        )
    )
    result = subprocess.run(  # noqa: S603 (fixed argv)
        ["docker", "compose", "--env-file", str(env_file), "--profile", "gpu", "config", "-q"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""


def _stages() -> dict[str, list[str]]:
    """The Dockerfile's instructions, stage by stage (`FROM ... AS name` opens a stage)."""
    stages: dict[str, list[str]] = {}
    current: list[str] = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if match := re.match(r"FROM \S+ AS (\S+)", line):
            current = stages.setdefault(match.group(1), [])
        elif line and not line.startswith("#"):
            current.append(line)
    return stages


def test_the_web_image_bundles_the_page_assets_itself_from_the_locked_packages() -> None:
    # vendor/ is build output git does not hold: an image that copied the checkout's would
    # serve a fresh clone's pages without their scripts (no autosave, no clock).
    stages = _stages()
    assets = " ".join(stages["assets"])
    assert "package-lock.json" in assets
    assert "npm ci" in assets
    assert "node scripts/build-assets.mjs" in assets
    web = stages["web"]
    copied = web.index("COPY --from=assets /app/vendor/app vendor/app")
    collected = next(i for i, line in enumerate(web) if "collectstatic" in line)
    assert copied < collected
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert "vendor" in ignored
