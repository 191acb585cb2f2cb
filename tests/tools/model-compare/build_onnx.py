"""Build an ONNX graph (batch 1 friendly, no padding) from a sentence-transformers
safetensors checkpoint (BERT or MPNet encoder), output last_hidden_state.
Optionally int8-quantise with onnxruntime.quantization.quantize_dynamic.

usage: build_onnx.py bert|mpnet model.safetensors out.onnx [--int8 out_int8.onnx]
"""
import json, struct, sys, math
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper


def load_safetensors(path):
    f = open(path, 'rb')
    n = struct.unpack('<Q', f.read(8))[0]
    h = json.loads(f.read(n))
    base = 8 + n
    data = np.memmap(path, dtype=np.uint8, mode='r')
    out = {}
    for k, v in h.items():
        if k == '__metadata__':
            continue
        dt = {'F32': np.float32, 'I64': np.int64, 'F16': np.float16}[v['dtype']]
        s, e = v['data_offsets']
        out[k] = np.frombuffer(bytes(data[base + s: base + e]), dtype=dt).reshape(v['shape'])
    return out


def rel_bucket(rel, num_buckets=32, max_distance=128):
    ret = np.zeros_like(rel)
    n = -rel
    num_buckets //= 2
    ret += (n < 0).astype(np.int64) * num_buckets
    n = np.abs(n)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide='ignore'):
        val_if_large = max_exact + (np.log(np.maximum(n, 1).astype(np.float32) / max_exact)
                                    / math.log(max_distance / max_exact) * (num_buckets - max_exact)).astype(np.int64)
    val_if_large = np.minimum(val_if_large, num_buckets - 1)
    ret += np.where(is_small, n, val_if_large)
    return ret


def build(arch, W, maxlen=512):
    nodes, inits = [], []
    cnt = [0]

    def name(p):
        cnt[0] += 1
        return f'{p}_{cnt[0]}'

    def const(arr, p='c'):
        n = name(p)
        inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(op, ins, **attrs):
        o = name(op)
        nodes.append(helper.make_node(op, ins, [o], name=o, **attrs))
        return o

    if arch == 'bert':
        H = W['embeddings.word_embeddings.weight'].shape[1]
        nl = 1 + max(int(k.split('.')[2]) for k in W if k.startswith('encoder.layer.'))
        heads = H // 32 if H == 384 else H // 64  # MiniLM-L6: 12 heads of 32; base: 12 of 64
        eps = 1e-12
        pos_start = 0
    else:
        H = W['embeddings.word_embeddings.weight'].shape[1]
        nl = 1 + max(int(k.split('.')[2]) for k in W if k.startswith('encoder.layer.'))
        heads = 12
        eps = 1e-5
        pos_start = 2
    dh = H // heads

    x = node('Gather', [const(W['embeddings.word_embeddings.weight'], 'wemb'), 'input_ids'], axis=0)
    shp = node('Shape', ['input_ids'])
    L = node('Gather', [shp, const(np.array(1, dtype=np.int64))], axis=0)
    start = const(np.array(pos_start, dtype=np.int64))
    end = node('Add', [L, start])
    rng = node('Range', [start, end, const(np.array(1, dtype=np.int64))])
    pe = node('Gather', [const(W['embeddings.position_embeddings.weight'], 'pemb'), rng], axis=0)
    x = node('Add', [x, pe])
    if arch == 'bert':
        x = node('Add', [x, const(W['embeddings.token_type_embeddings.weight'][0], 'tt')])
    x = node('LayerNormalization', [x, const(W['embeddings.LayerNorm.weight']), const(W['embeddings.LayerNorm.bias'])], axis=-1, epsilon=eps)

    bias = None
    if arch == 'mpnet':
        ctx = np.arange(maxlen)[:, None]
        mem = np.arange(maxlen)[None, :]
        b = rel_bucket(mem - ctx)
        tab = W['encoder.relative_attention_bias.weight']  # [32, heads]
        full = tab[b].transpose(2, 0, 1)[None].astype(np.float32)  # [1,heads,maxlen,maxlen]
        L1 = node('Unsqueeze', [L, const(np.array([0], dtype=np.int64))])
        ends = node('Concat', [L1, L1], axis=0)
        bias = node('Slice', [const(full, 'relbias'), const(np.array([0, 0], dtype=np.int64)), ends,
                              const(np.array([2, 3], dtype=np.int64))])

    def lin(inp, wkey, bkey):
        m = node('MatMul', [inp, const(np.ascontiguousarray(W[wkey].T), 'w')])
        return node('Add', [m, const(W[bkey], 'b')])

    split_shape = const(np.array([0, 0, heads, dh], dtype=np.int64))
    merge_shape = const(np.array([0, 0, H], dtype=np.int64))
    scale = const(np.array(1.0 / math.sqrt(dh), dtype=np.float32))
    for i in range(nl):
        p = f'encoder.layer.{i}.'
        if arch == 'bert':
            qk, kk, vk, ok = 'attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense'
            aln = 'attention.output.LayerNorm'
        else:
            qk, kk, vk, ok = 'attention.attn.q', 'attention.attn.k', 'attention.attn.v', 'attention.attn.o'
            aln = 'attention.LayerNorm'
        q = lin(x, p + qk + '.weight', p + qk + '.bias')
        k = lin(x, p + kk + '.weight', p + kk + '.bias')
        v = lin(x, p + vk + '.weight', p + vk + '.bias')
        q = node('Transpose', [node('Reshape', [q, split_shape])], perm=[0, 2, 1, 3])
        k = node('Transpose', [node('Reshape', [k, split_shape])], perm=[0, 2, 3, 1])
        v = node('Transpose', [node('Reshape', [v, split_shape])], perm=[0, 2, 1, 3])
        s = node('Mul', [node('MatMul', [q, k]), scale])
        if bias is not None:
            s = node('Add', [s, bias])
        a = node('Softmax', [s], axis=-1)
        c = node('MatMul', [a, v])
        c = node('Reshape', [node('Transpose', [c], perm=[0, 2, 1, 3]), merge_shape])
        o = lin(c, p + ok + '.weight', p + ok + '.bias')
        x = node('LayerNormalization', [node('Add', [o, x]), const(W[p + aln + '.weight']), const(W[p + aln + '.bias'])], axis=-1, epsilon=eps)
        h = lin(x, p + 'intermediate.dense.weight', p + 'intermediate.dense.bias')
        g = node('Mul', [node('Mul', [h, const(np.array(0.5, dtype=np.float32))]),
                         node('Add', [node('Erf', [node('Mul', [h, const(np.array(1 / math.sqrt(2), dtype=np.float32))])]),
                                      const(np.array(1.0, dtype=np.float32))])])
        out = lin(g, p + 'output.dense.weight', p + 'output.dense.bias')
        x = node('LayerNormalization', [node('Add', [out, x]), const(W[p + 'output.LayerNorm.weight']), const(W[p + 'output.LayerNorm.bias'])], axis=-1, epsilon=eps)
    nodes.append(helper.make_node('Identity', [x], ['last_hidden_state']))
    g = helper.make_graph(nodes, arch + '_encoder',
                          [helper.make_tensor_value_info('input_ids', TensorProto.INT64, ['batch', 'sequence'])],
                          [helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'sequence', H])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    return m


if __name__ == '__main__':
    arch, src, dst = sys.argv[1:4]
    W = load_safetensors(src)
    m = build(arch, W, maxlen=384 if arch == 'mpnet' else 512)
    onnx.save(m, dst)
    print('wrote', dst)
    if '--int8' in sys.argv:
        q = sys.argv[sys.argv.index('--int8') + 1]
        from onnxruntime.quantization import quantize_dynamic, QuantType
        mm = onnx.load(dst)
        inits = {i.name for i in mm.graph.initializer}
        excl = [n.name for n in mm.graph.node if n.op_type == 'MatMul' and n.input[1] not in inits]
        quantize_dynamic(dst, q, weight_type=QuantType.QInt8, op_types_to_quantize=['MatMul'],
                         nodes_to_exclude=excl, per_channel='--per-channel' in sys.argv)
        print('wrote', q)
