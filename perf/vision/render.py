"""perf.vision's and perf.vision.worlds' results as markdown: their tables, then their targets judged
(perf.vision.targets). Imports nothing that renders, so perf.report can render results anywhere."""

from __future__ import annotations

from perf.vision import targets


def _shown(figure: dict) -> str:
    return f"{figure['median']:.3f} ({figure['low']:.3f}–{figure['high']:.3f})"


def delivery_markdown(result: dict) -> list[str]:
    rendered = {(row["size"], row["kind"]): row["renderer_ms"]["median"] for row in result.get("rows", [])}
    lines = [
        "",
        f"Delivery alone, per request: the median of {result['rounds']} rounds of {result['count']} SensorRequests "
        "with the image and as many without it, interleaved (half without, those with, the other half without), "
        "to a server process answering with one image rendered beforehand, its image fields made per answer as "
        "`coupler serve` makes them; read as arrays by `coupler.Session` on an ipc:// address, through shared "
        "memory and (opted out) through the socket, in turns (lowest and highest round in brackets). Through "
        "shared memory the session also leases the server's shared channel (`shared_channel=True`), as `coupler "
        "serve` leases it to a lone controller: the requests go through the channel, the image through the "
        "ring. \"with\" is the full round "
        "trip with the image; \"adds\" is what the image adds to the same request without it (with minus "
        "without, round by round), the figure the delivery target is judged on.",
        "",
        "| size | kind | shared memory + channel: with ms | without ms | adds ms | socket: with ms | without ms "
        "| adds ms | socket ÷ shared, with | shared adds ÷ render alone |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in result["delivery"]:
        shared, socket = row["shared_ms"], row["socket_ms"]
        render = rendered.get((row["size"], row["kind"]))
        share = "–" if render is None else f"{row['shared_adds_ms']['median'] / render:.3f}"
        lines.append(f"| {row['size']} | {row['kind']} "
                     f"| {shared:.3f} ({row['shared_range'][0]:.3f}–{row['shared_range'][1]:.3f}) "
                     f"| {_shown(row['shared_plain_ms'])} | {_shown(row['shared_adds_ms'])} "
                     f"| {socket:.3f} ({row['socket_range'][0]:.3f}–{row['socket_range'][1]:.3f}) "
                     f"| {_shown(row['socket_plain_ms'])} | {_shown(row['socket_adds_ms'])} "
                     f"| {socket / shared:.1f} | {share} |")
    return lines


def _ms(figure: dict) -> str:
    return f"{figure['median']:.2f} ({figure['low']:.2f}–{figure['high']:.2f})"


def _rows_with_channel(result: dict) -> list[str]:
    lines = [
        f"Per image, the median of {result['rounds']} rounds of {result['count']} images each (lowest and highest "
        "round in brackets); each round times the renderer alone, then coupler with a session of the defaults "
        "(requests through the socket, images through shared memory), then coupler with a session that leases "
        "the server's shared channel (`shared_channel=True`: requests through the channel; it stepped once "
        "before timing, as the channel serves a controller), in turn, in one process against one server, all "
        "with MuJoCo's default visual flags (shadows and reflections on). The target is judged on the defaults.",
        "",
        "| size | kind | mujoco.Renderer alone ms | through coupler ms | coupler ÷ renderer "
        "| coupler, shared channel ms | shared channel ÷ renderer |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['size']} | {row['kind']} | {_ms(row['renderer_ms'])} | {_ms(row['coupler_ms'])} "
                     f"| {_ms(row['ratio'])} | {_ms(row['channel_ms'])} | {_ms(row['channel_ratio'])} |")
    return lines


def markdown(result: dict) -> str:
    lines = []
    if result.get("rows"):
        lines += _rows_with_channel(result)
    if "delivery" in result:
        lines += delivery_markdown(result)[0 if lines else 1:]
    lines += ["", targets.render(targets.evaluate_vision(result))]
    return "\n".join(lines)


def worlds_markdown(result: dict) -> str:
    row = result["row"]
    render, step, seeing, ratio = row["render_ms"], row["step_ms"], row["vector_env_ms"], row["ratio"]

    def shown(value: dict) -> str:
        return f"{value['median']:.1f} ({value['low']:.1f}–{value['high']:.1f})"

    return "\n".join([
        f"Per vector-env step of {result['worlds']} worlds, the median of {result['rounds']} rounds of "
        f"{result['steps']} step{'s' if result['steps'] > 1 else ''} each (lowest and highest round in brackets); "
        f"each round times mujoco.Renderer (made before timing) rendering {result['worlds']} images of the "
        "server's camera at its size with MuJoCo's default flags (shadows and reflections on), the vector env "
        "stepping without images, and with every world's image, in one process, in mirrored order (each side "
        "twice: alone, without, with, with, without, alone).",
        "",
        f"| worlds | size | render {result['worlds']} images alone ms | step without images ms "
        "| step with images ms | throughput ÷ bound |",
        "|---:|---|---:|---:|---:|---:|",
        f"| {result['worlds']} | {row['size']} rgb | {shown(render)} | {shown(step)} | {shown(seeing)} "
        f"| {ratio['median']:.2f} ({ratio['low']:.2f}–{ratio['high']:.2f}) |",
        "",
        targets.render(targets.evaluate_worlds(result)),
    ])
