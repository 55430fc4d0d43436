#!/usr/bin/env python3
"""Fails (exit 1) when modules of a crate import each other in a circle.

A module is a file under crates/*/src; `crate::a::b::Item` and `super::...` references count as an
import of the deepest module named. References to a module's own ancestors (through their re-exports)
do not count. Test modules (after `#[cfg(test)]`) are ignored. Run from the repository root.
"""
import os,re,sys
def modpath(src,p):
    rel=os.path.relpath(p,src)[:-3].split(os.sep)
    if rel[-1] in ('mod','lib'): rel=rel[:-1]
    return tuple(rel)
found = False
for crate in sorted(os.listdir('crates')):
    src=f'crates/{crate}/src'
    files={}
    for root,_,fs in os.walk(src):
        for f in fs:
            if f.endswith('.rs'):
                p=os.path.join(root,f); files[modpath(src,p)]=p
    mods=set(files)
    def resolve(parts):
        # deepest module prefix
        for k in range(len(parts),0,-1):
            if tuple(parts[:k]) in mods: return tuple(parts[:k])
        return ()
    g={}
    for m,p in files.items():
        s=open(p).read()
        s=re.split(r'#\[cfg\(test\)\]',s)[0]
        s=re.sub(r'//.*','',s)
        out=set()
        for mm in re.finditer(r'\bcrate::((?:\w+::)*\w+)(::\{([^}]*)\})?',s):
            base=mm.group(1).split('::')
            if mm.group(3):
                for it in re.split(r',',mm.group(3)):
                    it=it.strip().split(' as ')[0]
                    if not it or it=='self': out.add(resolve(base)); continue
                    out.add(resolve(base+it.split('::')))
            else: out.add(resolve(base))
        for mm in re.finditer(r'\bsuper::((?:\w+::)*\w+)(::\{([^}]*)\})?',s):
            parent=list(m[:-1]) if not p.endswith('mod.rs') else list(m[:-1])
            base=parent+mm.group(1).split('::')
            if mm.group(3):
                for it in mm.group(3).split(','):
                    it=it.strip().split(' as ')[0]
                    if it: out.add(resolve(base+it.split('::')))
            else: out.add(resolve(base))
        for mm in re.finditer(r'\buse super::\{([^}]*)\}',s):
            parent=list(m[:-1])
            for it in mm.group(1).split(','):
                it=it.strip().split(' as ')[0]
                if it: out.add(resolve(parent+it.split('::')))
        out.discard(()); out.discard(m)
        # a module referring to its own ancestors (via re-exports) is not counted
        out={o for o in out if not (len(o)<len(m) and m[:len(o)]==o)}
        g[m]=out
    idx={};low={};st=[];on=set();res=[];c=[0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
        for w in g.get(v,()):
            if w not in g: continue
            if w not in idx: sc(w);low[v]=min(low[v],low[w])
            elif w in on: low[v]=min(low[v],idx[w])
        if low[v]==idx[v]:
            comp=[]
            while True:
                w=st.pop();on.discard(w);comp.append(w)
                if w==v:break
            if len(comp)>1: res.append(comp)
    for v in g:
        if v not in idx: sc(v)
    for comp in res:
        found = True
        print(crate, ['::'.join(x) for x in sorted(comp)])
        for a in sorted(comp):
            print('   ','::'.join(a),'->',sorted('::'.join(x) for x in g[a] if x in comp))
if found:
    print('module import circles found (above): break them (move the shared item to the module both need)')
    sys.exit(1)
print('no module import circles')
