"""The bar chart of the ratios (peer time / tgc time per workload and peer, log scale) that
docs/performance.md shows under each machine's section."""

from . import report


def save(results, path):
    """Writes the chart to path; returns False (with the reason printed) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"compare: no chart: matplotlib is not available ({e})")
        return False
    workloads = [w for w in results["workloads"] if report.reference_of(w)]
    peers = [c for c in report.columns(results)
             if any(report.ratio(w, c) is not None for w in workloads)]
    if not workloads or not peers:
        print("compare: no chart: no ratio to draw")
        return False
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(workloads)), 5))
    width = 0.8 / len(peers)
    for k, peer in enumerate(peers):
        xs, ys = [], []
        for i, w in enumerate(workloads):
            r = report.ratio(w, peer)
            if r is not None:
                xs.append(i + (k - (len(peers) - 1) / 2) * width)
                ys.append(r)
        ax.bar(xs, ys, width, label=report.label(peer))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([w["id"] for w in workloads], rotation=30, ha="right")
    ax.set_ylabel("peer time / tgc time (above 1: tgc faster)")
    ax.set_title(report.heading(results) + (" (--quick)" if results["quick"] else ""), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
