"""The published study's S3 client: boto3 download_fileobj into a null sink.

Usage: boto3-download.py ENDPOINT CA_PATH BUCKET KEY CONCURRENCY CHUNK_MIB
Prints one JSON object: bytes, seconds (wall, the download only), cpuSeconds (process CPU
time of all threads around the download only: interpreter and import start-up excluded).
"""
import json
import sys
import time

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config


class NullSink:
    """Seekable, so s3transfer writes parts where they belong instead of buffering them."""

    def __init__(self):
        self.bytes = 0
        self.position = 0

    def write(self, data):
        self.bytes += len(data)
        self.position += len(data)
        return len(data)

    def seek(self, offset, whence=0):
        self.position = offset if whence == 0 else self.position + offset
        return self.position

    def tell(self):
        return self.position

    def seekable(self):
        return True


def main():
    endpoint, ca_path, bucket, key, concurrency, chunk_mib = sys.argv[1:7]
    concurrency = int(concurrency)
    chunk_bytes = int(float(chunk_mib) * 1024 * 1024)
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        verify=ca_path,
        aws_access_key_id="lnb-bench",
        aws_secret_access_key="lnb-bench-secret",
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, max_pool_connections=max(10, concurrency)),
    )
    config = TransferConfig(
        max_concurrency=concurrency,
        multipart_chunksize=chunk_bytes,
        multipart_threshold=chunk_bytes,
        use_threads=concurrency > 1,
    )
    sink = NullSink()
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    client.download_fileobj(bucket, key, sink, Config=config)
    seconds = time.perf_counter() - wall_start
    cpu_seconds = time.process_time() - cpu_start
    print(json.dumps({"bytes": sink.bytes, "seconds": seconds, "cpuSeconds": cpu_seconds}))


main()
