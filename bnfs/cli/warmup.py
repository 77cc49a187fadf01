"""``bnfs warmup``: compile the kernels of the call paths users meet, a process per core."""

from __future__ import annotations


def warmup_command(args) -> int:
    """``bnfs warmup``: run :func:`bnfs._warmup.warmup` and say what each path took."""
    from bnfs._warmup import warmup
    from bnfs.parallel import check_n_jobs

    if not args.quiet:
        where = f"into {args.into}" if args.into else "into this machine's numba cache"
        jobs = min(len(args.paths), check_n_jobs(args.jobs))
        print(f"bnfs warmup: compiling {len(args.paths)} call paths {where}, {jobs} at a time")
    seconds = warmup(args.paths, n_jobs=args.jobs, into=args.into)
    for name in args.paths:
        print(f"  {name:<11} {seconds[name]:7.1f} s")
    return 0
