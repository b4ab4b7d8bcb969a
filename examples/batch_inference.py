"""One model over a dataset, on a process pool, a Dask cluster or Ray.

    python examples/batch_inference.py pool|dask|ray
"""

import sys
from typing import List

import pyjit


@pyjit.script
def digit_sum(n: int) -> int:
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


@pyjit.script
def model(batch: List[int]) -> List[int]:
    return [digit_sum(n * n) for n in batch]


BATCHES = [list(range(start, start + 5000)) for start in range(1, 100001, 5000)]


def on_a_process_pool():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from tqdm import tqdm

    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=spawn) as pool:
        return list(tqdm(pool.map(model, BATCHES), total=len(BATCHES)))


def on_dask():
    from dask.distributed import Client, LocalCluster, progress

    # On a cluster: Client("tcp://scheduler:8786") instead, and the same three lines.
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        futures = client.map(model, BATCHES)
        progress(futures)               # Dask's progress bar
        return client.gather(futures)


def on_ray():
    import ray
    from tqdm import tqdm

    ray.init(num_cpus=2)                # on a cluster: ray.init(address="auto")
    run = ray.remote(lambda model, batch: model(batch))
    shared = ray.put(model)             # in the object store once, for every task
    refs = [run.remote(shared, batch) for batch in BATCHES]
    pending = refs
    with tqdm(total=len(refs)) as bar:   # as the tasks finish
        while pending:
            done, pending = ray.wait(pending)
            bar.update(len(done))
    return ray.get(refs)

if __name__ == "__main__":
    results = {"pool": on_a_process_pool, "dask": on_dask, "ray": on_ray}[sys.argv[1]]()
    print(sum(map(len, results)), max(map(max, results)), sum(map(sum, results)))
