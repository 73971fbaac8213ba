"""common.py - what the benchmark scripts share: the CPU time of the
children a script ran, and the quartiles quoted beside each median."""
import resource
import statistics


def children_cpu():
    """User and system seconds of every child waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def quartiles(xs):
    """(first, third) quartile of xs; NaNs for fewer than two values."""
    if len(xs) < 2:
        return (float("nan"), float("nan"))
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]
