"""The published study's S3 client uploading: boto3 upload_fileobj from memory.

Usage: boto3-upload.py ENDPOINT CA_PATH BUCKET KEY BYTES CONCURRENCY PART_MIB
Prints one JSON object: bytes, seconds (wall, the upload only), cpuSeconds (process CPU time of
all threads around the upload only: start-up and generating the data excluded), etag.
"""
import io
import json
import os
import sys
import time

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config


def main():
    endpoint, ca_path, bucket, key, size, concurrency, part_mib = sys.argv[1:8]
    size, concurrency = int(size), int(concurrency)
    part_bytes = int(float(part_mib) * 1024 * 1024)
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        verify=ca_path,
        aws_access_key_id="S3RVER",
        aws_secret_access_key="S3RVER",
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, max_pool_connections=max(10, concurrency)),
    )
    config = TransferConfig(
        max_concurrency=concurrency,
        multipart_chunksize=part_bytes,
        multipart_threshold=part_bytes,
        use_threads=concurrency > 1,
    )
    data = io.BytesIO(os.urandom(size))
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    client.upload_fileobj(data, bucket, key, Config=config)
    seconds = time.perf_counter() - wall_start
    cpu_seconds = time.process_time() - cpu_start
    head = client.head_object(Bucket=bucket, Key=key)
    print(json.dumps({"bytes": head["ContentLength"], "seconds": seconds, "cpuSeconds": cpu_seconds, "etag": head["ETag"]}))


main()
